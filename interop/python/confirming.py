"""delete_note asks the user first (`#[tool(confirm = "Delete note {note_id}?")]`): the
elicitation callback the Python scripts give their client, and the checks of what the server
asked and of a refused call.

    user = User()                                       # answers "accept" until told otherwise
    ClientSession(read, write, elicitation_callback=user)     # or Client(..., elicitation_callback=user)
    user.answer = "decline"                             # or "cancel", or "untick" (accept, confirm: false)
    check_asked(user, note_id)                          # exactly one question, the confirmation form
    check_refused(result, "declined", "the declined delete")
"""

from mcp.types import ElicitResult

from checks import check

# The confirmation form of every tool that confirms.
SCHEMA = {
    "type": "object",
    "properties": {
        "confirm": {"type": "boolean", "title": "Confirm", "description": "Run it", "default": True},
    },
    "required": ["confirm"],
}
ERROR_KIND = "dev.toolsmith/error"


class User:
    """An elicitation callback: records each question's params, answers with `answer`."""

    def __init__(self, answer="accept"):
        self.answer = answer
        self.asked = []

    async def __call__(self, context, params):
        self.asked.append(params)
        if self.answer == "accept":
            return ElicitResult(action="accept", content={"confirm": True})
        if self.answer == "untick":
            return ElicitResult(action="accept", content={"confirm": False})
        return ElicitResult(action=self.answer)

    def take(self):
        """The questions asked since the last take()."""
        asked, self.asked = self.asked, []
        return asked


def check_asked(user, note_id, what):
    """The user was asked exactly once since the last take(), with delete_note's form."""
    asked = user.take()
    check(len(asked) == 1, f"{what}: asked {len(asked)} times, not once: {asked}")
    for params in asked[:1]:
        check(getattr(params, "mode", None) == "form", f"{what}: mode {getattr(params, 'mode', None)!r}")
        check(params.message == f"Delete note {note_id}?", f"{what}: message {params.message!r}")
        schema = params.requested_schema
        if hasattr(schema, "model_dump"):
            schema = schema.model_dump(by_alias=True, exclude_none=True)
        check(schema == SCHEMA, f"{what}: requestedSchema {schema}")


def text_of(result):
    return " ".join(getattr(block, "text", "") for block in (result.content or []))


def check_refused(result, needles, what):
    """An error result of kind `refused` (the tool did not run) whose text has every needle."""
    text = text_of(result)
    check(result.is_error is True, f"{what}: an error result: {result}")
    check(result.structured_content is None, f"{what}: no structuredContent: {result.structured_content}")
    kind = (result.meta or {}).get(ERROR_KIND)
    check(kind == "refused", f"{what}: _meta {ERROR_KIND} {kind!r}")
    for needle in [needles] if isinstance(needles, str) else needles:
        check(needle in text, f"{what}: {needle!r} not in {text!r}")
    check("did not run" in text, f"{what}: the text says it did not run: {text!r}")
