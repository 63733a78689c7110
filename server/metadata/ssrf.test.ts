import { describe, expect, it } from 'vitest';
import { expectAppError } from '../../test/expect-app-error';
import { checkImageUrl, isPublicAddress, pinPublicAddress, type Resolver } from './ssrf';

const forbiddenHosts = [
  '127.1',
  '2130706433',
  '0x7f.1',
  '0177.0.0.1',
  '0',
  '0.0.0.0',
  '[::]',
  '[::1]',
  '[::ffff:127.0.0.1]',
  '[::ffff:7f00:1]',
  '[::127.0.0.1]',
  '169.254.169.254',
  '169.254.169.254.',
  '[::ffff:a9fe:a9fe]',
  '[fe80::1]',
  '10.0.0.1',
  '172.16.0.1',
  '192.168.1.1',
  '100.64.0.1',
  '198.18.0.1',
  '[fc00::1]',
  '[fd00::1]',
  '[64:ff9b::a9fe:a9fe]',
  '[2002:a9fe:a9fe::]',
  '[2001::1]',
  '224.0.0.1',
  '255.255.255.255',
];

function expectForbidden(run: () => unknown) {
  expectAppError(run, 'image_url_forbidden');
}

async function expectForbiddenAsync(run: () => Promise<unknown>) {
  await expect(run()).rejects.toMatchObject({ code: 'image_url_forbidden' });
}

const fixedResolver =
  (answers: Record<string, string[]>): Resolver =>
  async (hostname) => {
    const list = answers[hostname];
    if (!list) throw new Error('NXDOMAIN');
    return list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('SSRF policy for image_url', () => {
  it.each(forbiddenHosts)('rejects the literal host %s before connecting', (host) => {
    expectForbidden(() => checkImageUrl(`https://${host}/logo.png`));
  });

  it.each(forbiddenHosts)('rejects %s even when a resolver returned it for a name', async (host) => {
    const address = new URL(`https://${host}/`).hostname.replace(/^\[|\]$/g, '');
    await expectForbiddenAsync(() =>
      pinPublicAddress(
        new URL('https://images.example/a.png'),
        fixedResolver({ 'images.example': [address] }),
      ),
    );
  });

  it('accepts public unicast v4 and global unicast v6', () => {
    for (const ok of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '2a00:1450:4001::200e'])
      expect(isPublicAddress(ok), ok).toBe(true);
    expect(checkImageUrl('https://93.184.216.34/a.png').hostname).toBe('93.184.216.34');
  });

  it.each([
    'http://images.example/a.png',
    'file:///etc/passwd',
    'data:image/png;base64,AAAA',
    'ftp://images.example/a.png',
    'javascript:alert(1)',
    'not a url',
  ])('rejects the scheme of %s', (url) => expectForbidden(() => checkImageUrl(url)));

  it('rejects credentials in the URL and localhost names', () => {
    expectForbidden(() => checkImageUrl('https://user:pass@images.example/a.png'));
    expectForbidden(() => checkImageUrl('https://user@images.example/a.png'));
    expectForbidden(() => checkImageUrl('https://localhost/a.png'));
    expectForbidden(() => checkImageUrl('https://app.localhost/a.png'));
  });

  it('refuses a name with any private answer among mixed A/AAAA answers', async () => {
    await expectForbiddenAsync(() =>
      pinPublicAddress(
        new URL('https://mixed.example/'),
        fixedResolver({ 'mixed.example': ['93.184.216.34', 'fd00::1'] }),
      ),
    );
    await expectForbiddenAsync(() =>
      pinPublicAddress(
        new URL('https://mixed.example/'),
        fixedResolver({ 'mixed.example': ['2606:4700::1111', '10.0.0.1'] }),
      ),
    );
  });

  it('fails closed when resolution fails or returns nothing', async () => {
    await expectForbiddenAsync(() =>
      pinPublicAddress(new URL('https://nxdomain.example/'), fixedResolver({})),
    );
    await expectForbiddenAsync(() =>
      pinPublicAddress(new URL('https://empty.example/'), fixedResolver({ 'empty.example': [] })),
    );
  });

  it('resolves once and pins the first answer (no second lookup to rebind)', async () => {
    let calls = 0;
    const rebinding: Resolver = async () => {
      calls++;
      return calls === 1 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    };
    const pinned = await pinPublicAddress(new URL('https://rebind.example/a.png'), rebinding);
    expect(pinned).toEqual({ address: '93.184.216.34', family: 4 });
    expect(calls).toBe(1);
  });
});
