import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HUMAN_MODELS_DIR, withModelFiles } from './blazeface-detector';

describe('withModelFiles: human loads its models with fetch, served from disk', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'em-models-'));
  writeFileSync(path.join(dir, 'm.json'), '{"ok":true}');

  it('serves file:// URLs inside the folder, and restores the global fetch afterwards', async () => {
    const before = globalThis.fetch;
    const body = await withModelFiles(dir, async () => (await fetch(`file://${dir}/m.json`)).json());
    expect(body).toEqual({ ok: true });
    expect(globalThis.fetch).toBe(before);
  });

  it('refuses files outside the folder (a ../ path or another folder)', async () => {
    await expect(withModelFiles(dir, () => fetch(`file://${dir}/../etc/passwd`))).rejects.toThrow(/outside/);
    await expect(withModelFiles(dir, () => fetch('file:///etc/passwd'))).rejects.toThrow(/outside/);
  });

  it('restores the global fetch when loading fails', async () => {
    const before = globalThis.fetch;
    await expect(withModelFiles(dir, async () => { throw new Error('boom'); })).rejects.toThrow('boom');
    expect(globalThis.fetch).toBe(before);
  });

  it('the BlazeFace and FaceMesh models ship in the human package', () => {
    expect(require('node:fs').existsSync(path.join(HUMAN_MODELS_DIR, 'blazeface.json'))).toBe(true);
    expect(require('node:fs').existsSync(path.join(HUMAN_MODELS_DIR, 'facemesh.json'))).toBe(true);
  });
});
