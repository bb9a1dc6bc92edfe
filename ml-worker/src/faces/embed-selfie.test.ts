import { embedSelfie } from './embed-selfie';
import { FaceAnalyzer } from './face-analyzer';

describe('embedSelfie', () => {
  it("answers the largest face's descriptor as a plain array, and the number of faces found", async () => {
    const seen: Buffer[] = [];
    const faces = { embedSelfie: async (image: Buffer) => (seen.push(image), { descriptor: new Float32Array([0.5, -0.25]), facesFound: 3 }) } as unknown as FaceAnalyzer;
    expect(await embedSelfie(faces, { imageBase64: Buffer.from('jpeg').toString('base64') } as never)).toEqual({ descriptor: [0.5, -0.25], facesFound: 3 });
    expect(seen[0].toString()).toBe('jpeg');
  });

  it('answers a null descriptor when the selfie shows no face', async () => {
    const faces = { embedSelfie: async () => ({ descriptor: null, facesFound: 0 }) } as unknown as FaceAnalyzer;
    expect(await embedSelfie(faces, { imageBase64: '' } as never)).toEqual({ descriptor: null, facesFound: 0 });
  });
});
