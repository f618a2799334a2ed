// The parts of interop/node/idp.mjs that make oidc-provider the authorization server of
// upstream MCP servers (issue #56): resource servers whose access tokens are JWTs of their
// own audience, and the RFC 8693 token-exchange grant, by which a gateway trades a user's
// access token (issued by the gateway's own authorization server) for one of an upstream.
//
// oidc-provider has no token exchange of its own; `provider.registerGrantType` adds it to the
// token endpoint, which authenticates the client first (the gateway's, client_secret_basic)
// and passes the grant only to a client registered for it. The subject token is verified
// with `jose` against the gateway's JWKS: its signature, its issuer when one is given, its
// audience (the gateway's own resource) and its lifetime. The token issued names the subject
// token's `sub`, the requested resource as its audience, the scopes asked (each one the
// resource server offers), and the gateway as the actor (`act`, RFC 8693 section 4.1).

import { createRemoteJWKSet, jwtVerify } from "jose";
import { errors } from "oidc-provider";

export const TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
const ACCESS_TOKEN = "urn:ietf:params:oauth:token-type:access_token";
const JWT = "urn:ietf:params:oauth:token-type:jwt";
// What every upstream resource server offers: toolsmith's three hint scopes.
export const RESOURCE_SCOPES = "tools:read tools:write tools:destructive";

// `features.resourceIndicators` for the resource servers `resources` (URIs, e.g. an upstream's
// public MCP URL): JWT access tokens (RS256, `typ: at+jwt`) with the resource as `aud`,
// living `ttl` seconds; any other resource is an invalid_target.
export function resourceIndicators(resources, ttl) {
  const known = new Set(resources);
  return {
    enabled: true,
    // A refresh (or a token request that names no resource) keeps the resource granted.
    useGrantedResource: async () => true,
    async getResourceServerInfo(_ctx, resource) {
      if (!known.has(resource)) {
        throw new errors.InvalidTarget(`unknown resource ${resource}`);
      }
      return {
        audience: resource,
        scope: RESOURCE_SCOPES,
        accessTokenFormat: "jwt",
        accessTokenTTL: ttl,
        jwt: { sign: { alg: "RS256" } },
      };
    },
  };
}

const EXCHANGED = "token_exchange";

// The provider's `extraTokenClaims`: an exchanged token names the client that acts for the
// subject (`act`).
export async function extraTokenClaims(_ctx, token) {
  return token.gty === EXCHANGED ? { act: { sub: token.clientId } } : undefined;
}

function one(value, name) {
  if (Array.isArray(value)) {
    throw new errors.InvalidRequest(`give one ${name}, not ${value.length}`);
  }
  return value;
}

// Registers the token-exchange grant on `provider`. Subject tokens must be signed by a key of
// `jwksUrl` (the gateway's `/oauth/jwks`), name `audience` in `aud` (the gateway's MCP URL),
// and, when `issuer` is given, come from it. `resourceInfo` is the getResourceServerInfo of
// resourceIndicators() above. Each exchange is logged on stderr: subject, client, resource.
export function registerTokenExchange(provider, { jwksUrl, audience, issuer, resourceInfo }) {
  const keys = createRemoteJWKSet(new URL(jwksUrl));
  async function exchange(ctx) {
    const { client, params } = ctx.oidc;
    const type = params.subject_token_type;
    if (type !== ACCESS_TOKEN && type !== JWT) {
      throw new errors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN}, not ${type ?? "missing"}`);
    }
    if (params.requested_token_type && params.requested_token_type !== ACCESS_TOKEN) {
      throw new errors.InvalidRequest(`only ${ACCESS_TOKEN} is issued`);
    }
    if (params.actor_token) {
      throw new errors.InvalidRequest("actor tokens are not accepted: the client is the actor");
    }
    let subject;
    try {
      ({ payload: subject } = await jwtVerify(params.subject_token, keys, {
        audience,
        ...(issuer ? { issuer } : {}),
        requiredClaims: ["sub", "exp"],
      }));
    } catch (err) {
      // (InvalidGrant's description is a fixed sentence; this one says why.)
      throw new errors.CustomOIDCProviderError("invalid_grant", `the subject token is not valid: ${err.message}`);
    }
    const resource = one(params.resource, "resource") ?? one(params.audience, "audience");
    if (!resource) {
      throw new errors.InvalidTarget("name the resource (resource or audience)");
    }
    if (params.resource && params.audience && params.resource !== params.audience) {
      throw new errors.InvalidTarget("resource and audience name different resources");
    }
    const server = new provider.ResourceServer(resource, await resourceInfo(ctx, resource, client));
    const asked = params.scope ? params.scope.split(" ") : [...server.scopes];
    const unknown = asked.find((scope) => !server.scopes.has(scope));
    if (unknown) {
      throw new errors.InvalidScope(`${resource} offers no scope ${unknown}`, unknown);
    }
    const token = new provider.AccessToken({
      accountId: subject.sub,
      client,
      scope: asked.join(" "),
      gty: EXCHANGED,
    });
    token.resourceServer = server;
    const value = await token.save();
    console.error(`idp: token exchange: ${subject.sub} via ${client.clientId} for ${resource} (${asked.join(" ")})`);
    ctx.body = {
      access_token: value,
      issued_token_type: ACCESS_TOKEN,
      token_type: token.tokenType,
      expires_in: token.expiration,
      scope: token.scope,
    };
  }
  provider.registerGrantType(
    TOKEN_EXCHANGE,
    exchange,
    ["subject_token", "subject_token_type", "actor_token", "actor_token_type", "requested_token_type",
      "resource", "audience", "scope"],
    ["resource", "audience"],
  );
}
