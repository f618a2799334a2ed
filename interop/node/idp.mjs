// A real OpenID provider on loopback for the sign-in tests: `oidc-provider` (npm, an
// OpenID Certified implementation), set up as Google's and GitHub's are for a server's
// operator: NO dynamic registration, one static confidential client (the operator's), the
// authorization code flow with PKCE allowed (not required), and a login page the test
// answers headlessly (the provider's development interactions: a login form, then a consent
// form, each posted as a browser would).
//
//   node idp.mjs [--port 0] --client-id ID (--client-secret SECRET | env IDP_CLIENT_SECRET)
//                --redirect-uri URI [--redirect-uri URI ...]
//
// The issuer is http://127.0.0.1:PORT (the port it bound, when 0). Accounts: `alice`
// (alice@example.com, verified, groups staff and admins) and `bob` (bob@example.org,
// verified, group staff); the login form takes no password (the provider's development
// login), and a login of anyone else ends in an error page, never a code. Scopes `openid email profile` release
// sub, email and email_verified, name and groups (`groups` is a claim of `profile`, and a
// scope of its own too); the ID token carries them as well as userinfo, as Google's does.
// When ready it prints one line on stdout: `idp listening on http://127.0.0.1:PORT`.
// Listens on 127.0.0.1 only; stops on SIGTERM or SIGINT.

import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { parseArgs } from "node:util";

import Provider from "oidc-provider";

const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    "client-id": { type: "string" },
    "client-secret": { type: "string" },
    "redirect-uri": { type: "string", multiple: true },
  },
});
const clientId = args["client-id"];
const clientSecret = args["client-secret"] ?? process.env.IDP_CLIENT_SECRET;
const redirectUris = args["redirect-uri"] ?? [];
if (!clientId || !clientSecret || redirectUris.length === 0) {
  console.error(
    "usage: node idp.mjs [--port 0] --client-id ID (--client-secret S | env IDP_CLIENT_SECRET) --redirect-uri URI...",
  );
  process.exit(2);
}

const ACCOUNTS = {
  alice: { email: "alice@example.com", email_verified: true, name: "Alice", groups: ["staff", "admins"] },
  bob: { email: "bob@example.org", email_verified: true, name: "Bob", groups: ["staff"] },
};

// The port first: the issuer names it, and oidc-provider needs the issuer when built.
const server = createServer();
await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(Number(args.port), "127.0.0.1", resolve);
});
const issuer = `http://127.0.0.1:${server.address().port}`;

// A signing key of its own per run (RS256, what Google signs ID tokens with).
const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const signing = { ...privateKey.export({ format: "jwk" }), kid: "idp-test", use: "sig", alg: "RS256" };

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      client_name: "toolsmith (the operator's client)",
      redirect_uris: redirectUris,
      grant_types: ["authorization_code"],
      response_types: ["code"],
      token_endpoint_auth_method: "client_secret_basic",
    },
  ],
  features: {
    registration: { enabled: false },
    devInteractions: { enabled: true },
    revocation: { enabled: false },
  },
  pkce: { required: () => false },
  scopes: ["openid", "email", "profile", "groups"],
  claims: {
    openid: ["sub"],
    email: ["email", "email_verified"],
    profile: ["name", "groups"],
    groups: ["groups"],
  },
  // Claims asked by scope go into the ID token too (not only userinfo), as Google does.
  conformIdTokenClaims: false,
  jwks: { keys: [signing] },
  cookies: { keys: [randomBytes(32).toString("hex")] },
  async findAccount(_ctx, sub) {
    const account = ACCOUNTS[sub];
    if (!account) return undefined;
    return {
      accountId: sub,
      async claims() {
        return { sub, ...account };
      },
    };
  },
  renderError(ctx, out) {
    ctx.type = "html";
    ctx.body = `<!DOCTYPE html><title>error</title><p>${String(out.error)}: ${String(out.error_description ?? "")}</p>`;
  },
});

server.on("request", provider.callback());
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
console.log(`idp listening on ${issuer}`);
