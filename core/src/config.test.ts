import { loadConfig, requirePrincipalSecret } from './config';

describe('configuration', () => {
  const none = { DATA_DIR: '/nonexistent' };

  it('loads without PRINCIPAL_SECRET (CLI, migrate), with no fallback value', () => {
    expect(loadConfig(none).PRINCIPAL_SECRET).toBeUndefined();
  });

  it('a service that signs or verifies principals refuses to start without it, saying why', () => {
    expect(() => requirePrincipalSecret(loadConfig(none), 'gateway')).toThrow(
      /PRINCIPAL_SECRET is not set: the gateway/,
    );
    const secret = 'x'.repeat(32);
    expect(requirePrincipalSecret(loadConfig({ ...none, PRINCIPAL_SECRET: secret }), 'gateway')).toBe(secret);
    expect(() => loadConfig({ ...none, PRINCIPAL_SECRET: 'short' })).toThrow(/PRINCIPAL_SECRET/);
  });
});
