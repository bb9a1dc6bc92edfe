import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** The packages of the modules a fresh Node process has loaded after requiring `entry` (the built one). */
function packagesLoadedBy(entry: string): string[] {
  const script = `require(${JSON.stringify(entry)}); console.log(JSON.stringify(Object.keys(require.cache)))`;
  const files: string[] = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
  return [
    ...new Set(
      files
        .map((file) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1])
        .filter((name): name is string => !!name),
    ),
  ];
}

const HEAVY = /^(sharp|@aws-sdk\/.*|@mikro-orm\/.*|bullmq)$/;

describe('the REST adapter is a light process', () => {
  it('its library entry (everything its main runs) loads none of sharp, the AWS SDK, MikroORM or BullMQ', () => {
    const loaded = packagesLoadedBy(path.join(__dirname, '..', 'dist', 'index.js'));
    expect(loaded).toContain('undici');
    expect(loaded.filter((name) => HEAVY.test(name))).toEqual([]);
  });
});
