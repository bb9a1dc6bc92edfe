import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { exportJWK, exportPKCS8, generateKeyPair, importPKCS8, SignJWT } from 'jose';

/**
 * The embedded default's own OAuth issuer: an RS256 key pair kept in `<dataDir>/oauth/`, whose
 * public half is the JWKS the gateway verifies against. Production uses a real identity provider.
 */
export interface EmbeddedIssuerFiles {
  privateKeyFile: string;
  jwksFile: string;
}

const KEY_ID = 'embedded-1';

export function embeddedIssuerFiles(dataDir: string): EmbeddedIssuerFiles {
  const dir = path.join(dataDir, 'oauth');
  return { privateKeyFile: path.join(dir, 'private-key.pem'), jwksFile: path.join(dir, 'jwks.json') };
}

export async function ensureEmbeddedIssuer(dataDir: string): Promise<EmbeddedIssuerFiles> {
  const files = embeddedIssuerFiles(dataDir);
  if (existsSync(files.privateKeyFile) && existsSync(files.jwksFile)) return files;
  mkdirSync(path.dirname(files.privateKeyFile), { recursive: true, mode: 0o700 });
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  writeFileSync(files.privateKeyFile, await exportPKCS8(privateKey), { mode: 0o600 });
  const jwk = { ...(await exportJWK(publicKey)), kid: KEY_ID, alg: 'RS256', use: 'sig' };
  writeFileSync(files.jwksFile, JSON.stringify({ keys: [jwk] }, null, 2), { mode: 0o600 });
  return files;
}

export interface MintOptions {
  issuer: string;
  audience: string;
  subject: string;
  email?: string;
  scopes: string[];
  expiresInSeconds: number;
}

/**
 * Signs an access token with the embedded issuer's key (the CLI's `mint-token`). It always expires,
 * and its e-mail counts as verified: the operator minting it vouches for the account's address.
 */
export async function mintAccessToken(privateKeyPem: string, opts: MintOptions): Promise<string> {
  const key = await importPKCS8(privateKeyPem, 'RS256');
  return new SignJWT({
    scope: opts.scopes.join(' '),
    ...(opts.email ? { email: opts.email, email_verified: true } : {}),
  })
    .setProtectedHeader({ alg: 'RS256', kid: KEY_ID, typ: 'at+jwt' })
    .setIssuer(opts.issuer)
    .setAudience(opts.audience)
    .setSubject(opts.subject)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + opts.expiresInSeconds)
    .sign(key);
}

export function readPrivateKey(files: EmbeddedIssuerFiles): string {
  return readFileSync(files.privateKeyFile, 'utf8');
}
