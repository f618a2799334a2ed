// What the sign-in tests run against, started and stopped with bounded waits, on 127.0.0.1
// only: the OpenID provider (interop/node/idp.mjs, `oidc-provider`) with the operator's one
// client, the notes example serving with sign-in (`notes serve --http 127.0.0.1:PORT
// --signin-oidc ...`), and an HTTPS server of the test's own for a Client ID Metadata
// Document, under a certificate authority made for the run (openssl) that the notes server
// trusts through SSL_CERT_FILE.

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:net";
import { createServer as createHttpsServer } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";

const START_MS = 20_000;
const STOP_MS = 15_000;
const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
// Cut short (interop/run's `timeout`, ^C): the servers it started stop with it.
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(signal === "SIGTERM" ? 143 : 130));

export function workDir() {
  const dir = mkdtempSync(join(tmpdir(), "toolsmith-signin-"));
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// A port free on 127.0.0.1 now (the notes server's issuer must be known before it starts:
// the provider is told its redirect URI).
export async function freePort() {
  const probe = createHttpServer();
  await new Promise((resolve, reject) => probe.once("error", reject).listen(0, "127.0.0.1", resolve));
  const { port } = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

// Starts `command args`, collecting stderr and stdout; resolves with the first match of
// `pattern` on either, within 20 s.
function start(name, command, args, { env, pattern }) {
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  children.add(child);
  const proc = { name, child, output: "", exited: null };
  const ansi = /\x1b\[[0-9;]*[A-Za-z]/g;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} printed no listening line within 20 s:\n${tail(proc)}`)), START_MS);
    const read = (chunk) => {
      proc.output += chunk.toString("utf8").replace(ansi, "");
      const m = proc.output.match(pattern);
      if (m && !proc.found) {
        proc.found = m[1];
        clearTimeout(timer);
        resolve(proc);
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.on("exit", (code, signal) => {
      proc.exited = { code, signal };
      children.delete(child);
      if (!proc.found) {
        clearTimeout(timer);
        reject(new Error(`${name} exited (${code ?? signal}) before listening:\n${tail(proc)}`));
      }
    });
  });
}

export function tail(proc, lines = 20) {
  return proc.output.split("\n").slice(-lines).map((l) => `    ${l}`).join("\n");
}

// SIGTERM, then the exit within 15 s (SIGKILL past it); resolves with the exit code (null when killed).
export function stop(proc) {
  if (!proc || proc.exited) return Promise.resolve(proc?.exited?.code ?? null);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      proc.child.kill("SIGKILL");
      resolve(null);
    }, STOP_MS);
    proc.child.on("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
    proc.child.kill("SIGTERM");
  });
}

// The provider (idp.mjs) with the operator's client, whose redirect URI is the notes
// server's `/oauth/callback`.
export async function startProvider(idpScript, { clientId, clientSecret, redirectUri }) {
  const proc = await start("idp", process.execPath, [idpScript, "--port", "0", "--client-id", clientId,
    "--redirect-uri", redirectUri], { env: { IDP_CLIENT_SECRET: clientSecret }, pattern: /idp listening on (http:\/\/127\.0\.0\.1:\d+)/ });
  proc.issuer = proc.found;
  return proc;
}

// `notes serve --http 127.0.0.1:PORT --signin-oidc ISSUER ...`, trusting `caFile` (for the
// Client ID Metadata Document's HTTPS); `url` is the listening line's URL (…/mcp).
export async function startNotes(notes, { port, idpIssuer, clientId, secretFile, caFile, extra = [] }) {
  const args = ["serve", "--http", `127.0.0.1:${port}`, "--signin-oidc", idpIssuer, "--signin-client-id", clientId,
    "--signin-client-secret-file", secretFile, "--signin-allow-host", "127.0.0.1", ...extra];
  const proc = await start("notes", notes, args, {
    env: { SSL_CERT_FILE: caFile, TOOLSMITH_LOG: process.env.TOOLSMITH_LOG ?? "info" },
    pattern: /listening on (http:\/\/127\.0\.0\.1:\d+\/[^\s"']*)/,
  });
  proc.url = proc.found;
  proc.issuer = new URL(proc.url).origin;
  return proc;
}

// A certificate authority and a certificate for 127.0.0.1 it signed (openssl, EC P-256);
// returns {ca, key, cert} file paths.
export function makeCertificates(dir) {
  const file = (name) => join(dir, name);
  const openssl = (...args) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"], timeout: 20_000 });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl("req", "-x509", ...ec, "-keyout", file("ca.key"), "-out", file("ca.pem"), "-days", "2",
    "-subj", "/CN=toolsmith interop test CA", "-addext", "basicConstraints=critical,CA:TRUE",
    "-addext", "keyUsage=critical,keyCertSign,cRLSign");
  openssl("req", ...ec, "-keyout", file("leaf.key"), "-out", file("leaf.csr"), "-subj", "/CN=127.0.0.1");
  writeFileSync(file("leaf.ext"), "subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\n"
    + "keyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n");
  openssl("x509", "-req", "-in", file("leaf.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"),
    "-CAcreateserial", "-out", file("leaf.pem"), "-days", "2", "-extfile", file("leaf.ext"));
  return { ca: file("ca.pem"), key: file("leaf.key"), cert: file("leaf.pem") };
}

// An HTTPS server on 127.0.0.1 serving one Client ID Metadata Document at /client.json
// (`document(url)` makes it, given its own URL); `requests` records what was asked of it.
export async function serveMetadataDocument({ key, cert }, document) {
  const requests = [];
  let url;
  const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    requests.push({ method: req.method, path: req.url, userAgent: req.headers["user-agent"] });
    if (req.method === "GET" && req.url === "/client.json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(document(url)));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  url = `https://127.0.0.1:${server.address().port}/client.json`;
  return { url, requests, close: () => new Promise((resolve) => server.close(resolve)) };
}

// The operator's client at the provider: an id and a secret (written to a file, as
// --signin-client-secret-file reads it).
export function operatorClient(dir) {
  const clientId = "toolsmith-operator";
  const clientSecret = randomBytes(24).toString("hex");
  const secretFile = join(dir, "client-secret");
  writeFileSync(secretFile, `${clientSecret}\n`, { mode: 0o600 });
  return { clientId, clientSecret, secretFile };
}
