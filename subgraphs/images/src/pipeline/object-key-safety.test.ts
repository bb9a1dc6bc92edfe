import { unsafeObjectKeyReason } from './object-key-safety';

describe('unsafeObjectKeyReason', () => {
  it('passes plain keys, spaces and non-ASCII names included', () => {
    expect(unsafeObjectKeyReason('inbox/14/IMG_0001.jpg')).toBeNull();
    expect(unsafeObjectKeyReason('inbox/14/finish line é 100%.jpg')).toBeNull();
  });

  it.each([
    'inbox/14/../originals/x.jpg',
    'inbox/14/%2e%2e/originals/x.jpg',
    'inbox/14/%252e%252E/x.jpg',
    'inbox/14/a%5c..%5cb',
    'inbox/14/a%00.jpg',
    'inbox/14//x.jpg',
    'inbox/14/./x.jpg',
    'inbox/14/%2F/x',
  ])('refuses %s', (key) => expect(unsafeObjectKeyReason(key)).not.toBeNull());
});
