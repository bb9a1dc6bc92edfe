import { embedSelfie } from './embed-selfie';
import { FaceAnalyzer } from './face-analyzer';

/** Images stored beside jobs, by key. */
const stored = (values: Record<string, Buffer> = {}) => ({ read: async (key: string) => values[key] ?? null });

describe('embedSelfie', () => {
  it('reads the image stored beside the job under its key', async () => {
    const seen: Buffer[] = [];
    const faces = {
      embedSelfie: async (image: Buffer) => (seen.push(image), { descriptor: new Float32Array([1]), facesFound: 1 }),
    } as unknown as FaceAnalyzer;
    const images = stored({ 'selfie-image:a': Buffer.from('jpeg bytes') });
    expect(await embedSelfie(faces, { imageKey: 'selfie-image:a' }, images)).toMatchObject({ descriptor: [1] });
    expect(seen[0].toString()).toBe('jpeg bytes');
  });

  it('fails the job, without calling the model, when the image is gone (its search stopped waiting)', async () => {
    const model = jest.fn();
    const faces = { embedSelfie: model } as unknown as FaceAnalyzer;
    await expect(embedSelfie(faces, { imageKey: 'selfie-image:gone' }, stored())).rejects.toThrow(/gone/);
    expect(model).not.toHaveBeenCalled();
  });

  it("answers the largest face's descriptor as a plain array, and the number of faces found", async () => {
    const seen: Buffer[] = [];
    const faces = {
      embedSelfie: async (image: Buffer) => (
        seen.push(image),
        { descriptor: new Float32Array([0.5, -0.25]), facesFound: 3 }
      ),
    } as unknown as FaceAnalyzer;
    expect(await embedSelfie(faces, { imageBase64: Buffer.from('jpeg').toString('base64') }, stored())).toMatchObject({
      descriptor: [0.5, -0.25],
      facesFound: 3,
    });
    expect(seen[0].toString()).toBe('jpeg');
  });

  it('answers its box-family descriptor too (for faces stored before descriptor version 4)', async () => {
    const faces = {
      embedSelfie: async () => ({
        descriptor: new Float32Array([0.5]),
        boxDescriptor: new Float32Array([0.75]),
        facesFound: 1,
      }),
    } as unknown as FaceAnalyzer;
    expect(await embedSelfie(faces, { imageBase64: '' }, stored())).toMatchObject({
      descriptor: [0.5],
      boxDescriptor: [0.75],
    });
  });

  it('answers a null descriptor when the selfie shows no face', async () => {
    const faces = { embedSelfie: async () => ({ descriptor: null, facesFound: 0 }) } as unknown as FaceAnalyzer;
    expect(await embedSelfie(faces, { imageBase64: '' }, stored())).toMatchObject({ descriptor: null, facesFound: 0 });
  });

  it("says when the work started and ended, and the model's share (as measured by the embedder, else the whole call)", async () => {
    const before = Date.now();
    const timed = {
      embedSelfie: async () => (
        await new Promise((r) => setTimeout(r, 30)),
        { descriptor: null, facesFound: 0, modelMs: 12 }
      ),
    };
    const { timing } = await embedSelfie(timed, { imageBase64: '' }, stored());
    expect(timing!.startedAt).toBeGreaterThanOrEqual(before);
    expect(timing!.finishedAt - timing!.startedAt).toBeGreaterThanOrEqual(25);
    expect(timing!.modelMs).toBe(12);
    const plain = {
      embedSelfie: async () => (await new Promise((r) => setTimeout(r, 30)), { descriptor: null, facesFound: 0 }),
    };
    expect((await embedSelfie(plain, { imageBase64: '' }, stored())).timing!.modelMs).toBeGreaterThanOrEqual(25);
  });
});
