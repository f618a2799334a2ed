// A real OpenID provider on loopback for the sign-in tests: `oidc-provider` (npm, an
// OpenID Certified implementation), set up as Google's and GitHub's are for a server's
// operator: NO dynamic registration, one static confidential client (the operator's), the
// authorization code flow with PKCE allowed (not required), and a login page the test
// answers headlessly (the provider's development interactions: a login form, then a consent
// form, each posted as a browser would).
//
//   node idp.mjs [--port 0] --client-id ID (--client-secret SECRET | env IDP_CLIENT_SECRET)
//                --redirect-uri URI [--redirect-uri URI ...]
//                [--resource URI ...] [--access-ttl SECONDS]
//                [--exchange-jwks URL --exchange-audience AUD [--exchange-issuer ISS]]
//   node idp.mjs --upstream [--port 0] --resource URI [--access-ttl SECONDS]
//                [--client-id ID (--client-secret SECRET | env) --redirect-uri URI ...]
//
// The issuer is http://127.0.0.1:PORT (the port it bound, when 0). Accounts: `alice`
// (alice@example.com, verified, groups staff and admins) and `bob` (bob@example.org,
// verified, group staff); the login form takes no password (the provider's development
// login), and a login of anyone else ends in an error page, never a code. Scopes `openid email profile` release
// sub, email and email_verified, name and groups (`groups` is a claim of `profile`, and a
// scope of its own too); the ID token carries them as well as userinfo, as Google's does.
//
// As the authorization server of upstream MCP servers (issue #56, idp_exchange.mjs):
// - `--resource URI` (repeatable): a resource server (an upstream's public MCP URL) whose
//   access tokens are JWTs (RS256, `typ: at+jwt`) with the URI as `aud`, a user's living
//   `--access-ttl` seconds (default 3600), scopes tools:read, tools:write, tools:destructive;
//   the static client may then also use `client_credentials` for them (its tokens: 10 min).
// - `--exchange-jwks URL --exchange-audience AUD`: the static client (a gateway) may use the
//   RFC 8693 token-exchange grant, trading a user's access token signed by a key of URL
//   (the gateway's JWKS) with AUD in `aud` (and `iss` = `--exchange-issuer`, when given) for
//   a token of a resource above naming the same `sub`.
// - `--upstream`: a second, independent provider (its own keys and accounts `alice-b` and
//   `bob-b`, the same users' accounts there): open dynamic client registration (RFC 7591),
//   PKCE required, refresh tokens for every client allowed the refresh_token grant,
//   revocation (RFC 7009); the static client is optional. Each token issued or revoked is
//   logged on stderr (`idp: grant GRANT_TYPE ...`, `idp: revoked ...`).
// - SIGUSR2 revokes the static client's secret (a rotation at the provider that its holder
//   missed: every authentication with it fails, invalid_client), and a second SIGUSR2
//   restores it; each prints `idp: client secret revoked` / `restored` on stdout.
// When ready it prints one line on stdout: `idp listening on http://127.0.0.1:PORT`.
// Listens on 127.0.0.1 only; stops on SIGTERM or SIGINT.

import { generateKeyPairSync, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { parseArgs } from "node:util";

import Provider from "oidc-provider";

import { TOKEN_EXCHANGE, extraTokenClaims, registerTokenExchange, resourceIndicators } from "./idp_exchange.mjs";

const { values: args } = parseArgs({
  options: {
    port: { type: "string", default: "0" },
    "client-id": { type: "string" },
    "client-secret": { type: "string" },
    "redirect-uri": { type: "string", multiple: true },
    resource: { type: "string", multiple: true },
    "access-ttl": { type: "string", default: "3600" },
    "exchange-jwks": { type: "string" },
    "exchange-audience": { type: "string" },
    "exchange-issuer": { type: "string" },
    upstream: { type: "boolean", default: false },
  },
});
const upstream = args.upstream;
const clientId = args["client-id"];
const clientSecret = args["client-secret"] ?? process.env.IDP_CLIENT_SECRET;
const redirectUris = args["redirect-uri"] ?? [];
const resources = args.resource ?? [];
const accessTtl = Number(args["access-ttl"]);
const exchanging = args["exchange-jwks"] !== undefined;
const usage = `usage: node idp.mjs [--port 0] --client-id ID (--client-secret S | env IDP_CLIENT_SECRET) --redirect-uri URI...
         [--resource URI...] [--access-ttl SECONDS] [--exchange-jwks URL --exchange-audience AUD [--exchange-issuer ISS]]
       node idp.mjs --upstream [--port 0] --resource URI... [--access-ttl SECONDS] [--client-id ID --client-secret S --redirect-uri URI...]`;
const staticClient = Boolean(clientId || !upstream);
if (
  (staticClient && (!clientId || !clientSecret || redirectUris.length === 0))
  || (exchanging && (!args["exchange-audience"] || resources.length === 0 || upstream))
  || (upstream && resources.length === 0)
  || !(Number.isInteger(accessTtl) && accessTtl > 0)
) {
  console.error(usage);
  process.exit(2);
}

const ACCOUNTS = upstream
  ? {
    "alice-b": { email: "alice@upstream-b.example", email_verified: true, name: "Alice at B", groups: [] },
    "bob-b": { email: "bob@upstream-b.example", email_verified: true, name: "Bob at B", groups: [] },
  }
  : {
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
const signing = { ...privateKey.export({ format: "jwk" }), kid: upstream ? "idp-upstream" : "idp-test", use: "sig", alg: "RS256" };

// What the static client may do: the code flow; for resource servers, also client
// credentials (a gateway lists an upstream's tools as itself) and, with --exchange-jwks, the
// token exchange; at the upstream provider, refresh tokens too.
const grantTypes = ["authorization_code"];
if (upstream) grantTypes.push("refresh_token");
if (resources.length > 0) grantTypes.push("client_credentials");
if (exchanging) grantTypes.push(TOKEN_EXCHANGE);
const indicators = resources.length > 0 ? resourceIndicators(resources, accessTtl) : undefined;

const provider = new Provider(issuer, {
  clients: staticClient
    ? [
      {
        client_id: clientId,
        client_secret: clientSecret,
        client_name: upstream ? "toolsmith gateway (static client)" : "toolsmith (the operator's client)",
        redirect_uris: redirectUris,
        grant_types: grantTypes,
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ]
    : [],
  features: {
    registration: { enabled: upstream },
    devInteractions: { enabled: true },
    revocation: { enabled: upstream },
    clientCredentials: { enabled: resources.length > 0 },
    ...(indicators ? { resourceIndicators: indicators } : {}),
  },
  pkce: { required: () => upstream },
  ...(upstream
    ? {
      // Every client allowed the grant gets a refresh token (no offline_access needed), kept
      // beyond the provider's browser session.
      issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
      expiresWithSession: async () => false,
      clientDefaults: {
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "client_secret_basic",
      },
    }
    : {}),
  // (--access-ttl is the users' tokens'; a client's own lasts the provider's default 10 min)
  ttl: { AccessToken: accessTtl, ClientCredentials: 600 },
  extraTokenClaims,
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

if (exchanging) {
  registerTokenExchange(provider, {
    jwksUrl: args["exchange-jwks"],
    audience: args["exchange-audience"],
    issuer: args["exchange-issuer"],
    resourceInfo: indicators.getResourceServerInfo,
  });
}
if (upstream || resources.length > 0) {
  provider.on("grant.success", (ctx) => {
    const { client, params } = ctx.oidc;
    console.error(`idp: grant ${params.grant_type} for ${client?.clientId}`);
  });
  provider.on("grant.error", (ctx, err) => {
    console.error(`idp: grant ${ctx.oidc.params?.grant_type} refused: ${err.error} (${err.error_description})`);
  });
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route === "revocation" && ctx.status === 200) {
      console.error(`idp: revoked a token of ${ctx.oidc.client?.clientId}`);
    }
  });
  provider.on("registration_create.success", (ctx, client) => console.error(`idp: registered ${client.clientId} (${client.grantTypes.join(" ")})`));
}

// SIGUSR2: the static client's secret revoked (a rotation its holder missed), then restored.
let revoked = false;
process.on("SIGUSR2", async () => {
  const client = await provider.Client.find(clientId);
  revoked = !revoked;
  client.clientSecret = revoked ? randomBytes(24).toString("hex") : clientSecret;
  console.log(`idp: client secret ${revoked ? "revoked" : "restored"}`);
});

server.on("request", provider.callback());
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => server.close(() => process.exit(0)));
}
console.log(`idp listening on ${issuer}`);
