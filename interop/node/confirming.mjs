// The user of the confirmation checks (delete_note asks before every call), shared by the
// TypeScript SDK scripts: a handler that answers each elicitation with `user.answer` and
// remembers what it was asked, and the checks of what was asked and of a refusal.

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// The confirmation form's `requestedSchema`, exactly.
export const CONFIRM_SCHEMA = {
  type: "object",
  properties: { confirm: { type: "boolean", title: "Confirm", description: "Run it", default: true } },
  required: ["confirm"],
};

// A user who answers "accept" (with the box ticked), "decline" or "cancel".
export function confirmingUser() {
  const user = { answer: "accept", asked: [] };
  user.handle = async (request) => {
    user.asked.push(request.params);
    return user.answer === "accept" ? { action: "accept", content: { confirm: true } } : { action: user.answer };
  };
  return user;
}

// Whether `form` is the confirmation of deleting note `noteId`.
export function isConfirmation(form, noteId) {
  return form?.message === `Delete note ${noteId}?` && same(form?.requestedSchema, CONFIRM_SCHEMA);
}

// The user was asked once, with the confirmation of deleting note `noteId`.
export function checkAsked(check, user, noteId, what) {
  const asked = user.asked.splice(0);
  check(asked.length === 1, `${what}: asked ${asked.length} times, not once: ${JSON.stringify(asked)}`);
  check(isConfirmation(asked[0], noteId), `${what}: the confirmation form ${JSON.stringify(asked[0] ?? {})}`);
}

// `result` is a refusal (an error result of kind `refused`) whose text holds every needle.
export function checkRefused(check, result, needles, what) {
  const all = (result.content ?? []).map((b) => b.text ?? "").join(" ");
  check(result.isError === true && result.structuredContent === undefined, `${what}: an error result ${JSON.stringify(result)}`);
  check(result._meta?.["dev.toolsmith/error"] === "refused", `${what}: _meta ${JSON.stringify(result._meta)}`);
  for (const needle of [...needles, "did not run"]) check(all.includes(needle), `${what}: ${JSON.stringify(needle)} not in ${JSON.stringify(all)}`);
}
