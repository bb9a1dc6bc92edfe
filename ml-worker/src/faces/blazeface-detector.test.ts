import { existsSync } from 'node:fs';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BlazeFaceDetector, HUMAN_MODELS_DIR, withModelFiles } from './blazeface-detector';

describe('withModelFiles: human loads its models with fetch, served from disk', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'em-models-'));
  writeFileSync(path.join(dir, 'm.json'), '{"ok":true}');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
    await expect(
      withModelFiles(dir, async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(globalThis.fetch).toBe(before);
  });

  it('the BlazeFace and FaceMesh models ship in the human package', () => {
    expect(existsSync(path.join(HUMAN_MODELS_DIR, 'blazeface.json'))).toBe(true);
    expect(existsSync(path.join(HUMAN_MODELS_DIR, 'facemesh.json'))).toBe(true);
  });
});

describe('BlazeFaceDetector (real models)', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tf = require('@tensorflow/tfjs');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  const wasmPath = `${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'))}/`;

  it('compares no input with the last one (human would, on every call: a difference and a copy of the input) and finds the same faces as with that cache on', async () => {
    wasm.setWasmPaths(wasmPath);
    await tf.setBackend('wasm');
    await tf.ready();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const sharp = require('sharp');
    const demo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
    const { data, info } = await sharp(path.join(demo, 'sample5.jpg'))
      .resize(512, 512, { fit: 'contain' })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    const image = tf.tensor3d(data, [info.height, info.width, 3], 'int32');
    const detector = new BlazeFaceDetector();
    await detector.load(wasmPath);
    const faces = await detector.detect(image);
    await detector.detect(image);
    expect(faces.length).toBeGreaterThan(0);
    const human = (
      detector as unknown as { human: { config: { cacheSensitivity: number }; performance: { cachedFrames?: number } } }
    ).human;
    expect(human.performance.cachedFrames ?? 0).toBe(0);
    human.config.cacheSensitivity = 0.7;
    expect(await detector.detect(image)).toEqual(faces);
    expect(await detector.detect(image)).toEqual(faces);
    expect(human.performance.cachedFrames).toBeGreaterThan(0); // the cache was on: it saw the same input again, and still detected
  }, 60_000);
});
