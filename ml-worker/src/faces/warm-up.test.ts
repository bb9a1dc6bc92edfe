import { warmUpSelfies } from './warm-up';

describe('warmUpSelfies', () => {
  it('embeds a blank image (the no-face path) and a photo with a face, and shrugs off a failure', async () => {
    const seen: Buffer[] = [];
    await warmUpSelfies({
      embedSelfie: async (image: Buffer) => {
        seen.push(image);
        if (seen.length === 1) throw new Error('model not ready');
        return { descriptor: null, facesFound: 0 };
      },
    });
    expect(seen).toHaveLength(2);
    expect(seen[0].subarray(1, 4).toString()).toBe('PNG');
    expect(seen[1].length).toBeGreaterThan(10_000);
  });
});
