import { describe, expect, it } from 'vitest';
import type { Resolver } from '../metadata/ssrf';
import { checkWebhookUrl, pinWebhookAddress, WebhookUrlRefused } from './target-url';

// Rule: a webhook target passes the image_url SSRF policy; loopback only with the test allowance.
describe('webhook target URLs', () => {
  const strict = { allowLoopback: false };
  const tests = { allowLoopback: true };
  const resolveTo =
    (...addresses: string[]): Resolver =>
    async () =>
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }) as const);

  it.each([
    'http://hooks.example/x',
    'ftp://hooks.example/x',
    'https://u:p@hooks.example/x',
    'https://localhost/x',
    'https://a.localhost/x',
    'https://127.0.0.1/x',
    'https://2130706433/x',
    'https://10.0.0.1/x',
    'https://169.254.169.254/latest',
    'https://[::1]/x',
    'https://[::ffff:10.0.0.1]/x',
    'not a url',
  ])('refuses %s', (url) => {
    expect(() => checkWebhookUrl(url, strict)).toThrow(WebhookUrlRefused);
  });

  it('admits public https names and literals', () => {
    expect(checkWebhookUrl('https://hooks.example/x?a=1', strict).toString()).toBe(
      'https://hooks.example/x?a=1',
    );
    expect(checkWebhookUrl('https://93.184.216.34/x', strict).hostname).toBe('93.184.216.34');
  });

  it('admits loopback literals (http too) only with the test allowance', () => {
    expect(checkWebhookUrl('http://127.0.0.1:8080/x', tests).port).toBe('8080');
    expect(() => checkWebhookUrl('http://127.0.0.1:8080/x', strict)).toThrow(WebhookUrlRefused);
    // The allowance is for loopback only, not for private networks or plain-http names.
    expect(() => checkWebhookUrl('http://10.0.0.1/x', tests)).toThrow(WebhookUrlRefused);
    expect(() => checkWebhookUrl('http://hooks.example/x', tests)).toThrow(WebhookUrlRefused);
  });

  it('pins a name only when every answer is public, and fails closed', async () => {
    const url = new URL('https://hooks.example/x');
    expect(await pinWebhookAddress(url, resolveTo('93.184.216.34'), strict)).toEqual({
      address: '93.184.216.34',
      family: 4,
    });
    await expect(pinWebhookAddress(url, resolveTo('93.184.216.34', '10.0.0.1'), strict)).rejects.toThrow(
      /non-public/,
    );
    await expect(pinWebhookAddress(url, resolveTo('fd00::1'), strict)).rejects.toThrow(/non-public/);
    await expect(pinWebhookAddress(url, resolveTo(), strict)).rejects.toThrow(/no addresses/);
    const failing: Resolver = async () => {
      throw new Error('SERVFAIL');
    };
    await expect(pinWebhookAddress(url, failing, strict)).rejects.toThrow(/could not resolve/);
  });

  it('keeps the address of a kept-alive connection while the name still answers with it, and only then', async () => {
    const url = new URL('https://hooks.example/x');
    const rotating = resolveTo('93.184.216.34', '93.184.216.35');
    expect((await pinWebhookAddress(url, rotating, strict, undefined, '93.184.216.35')).address).toBe(
      '93.184.216.35',
    );
    // The kept address is no longer an answer: the first answer, a new connection.
    expect((await pinWebhookAddress(url, rotating, strict, undefined, '93.184.216.99')).address).toBe(
      '93.184.216.34',
    );
    // A kept address among answers that now include a private one: the whole name is refused.
    await expect(
      pinWebhookAddress(url, resolveTo('93.184.216.35', '10.0.0.1'), strict, undefined, '93.184.216.35'),
    ).rejects.toThrow(/non-public/);
  });
});
