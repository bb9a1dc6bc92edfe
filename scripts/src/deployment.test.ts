import { CONFIG_VARIABLES, DEFAULT_PORTS, loadConfig, REPO_ROOT } from '@em/core';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { SERVICES } from './platform/services';

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
    expect(compose.services.migrate.command).toEqual(['node', 'scripts/dist/migrate.js']);
    expect(existsSync(path.join(REPO_ROOT, 'scripts/src/migrate.ts'))).toBe(true);
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
        String(v).replace(/\$\{(\w+):([?-])([^}]*)\}/g, (_m, name: string, kind: string, rest: string) => (kind === '-' ? rest : name === 'PRINCIPAL_SECRET' ? 'x'.repeat(40) : 'secret')),
      ]),
    );
    const cfg = loadConfig({ ...resolved, DATA_DIR: '/nonexistent' });
    expect(cfg.subgraphUrls.search).toBe('http://search:4003/graphql');
    expect(cfg.LISTEN_HOST).toBe('0.0.0.0');
  });

  it('checks the REST adapter on its operator port, which is not published', () => {
    const adapter = compose.services['rest-adapter'];
    expect(adapter.healthcheck.test.join(' ')).toContain(`127.0.0.1:${DEFAULT_PORTS.restOperator}/health/ready`);
    expect(adapter.ports.join(' ')).not.toContain(String(DEFAULT_PORTS.restOperator));
  });

  it('the Dockerfile copies what the build needs', () => {
    const dockerfile = readFileSync(path.join(REPO_ROOT, 'Dockerfile'), 'utf8');
    for (const [, source] of dockerfile.matchAll(/^COPY (?!--from)(\S+)/gm)) expect(existsSync(path.join(REPO_ROOT, source))).toBe(true);
  });
});
