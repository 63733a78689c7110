import { describe, expect, it } from 'vitest';
import { type LaunchFormValues, validateLaunchForm } from '../../shared/launch/launch-form-rules';

const png = new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'logo.png', { type: 'image/png' });
const valid: LaunchFormValues = {
  name: 'Rocket',
  symbol: 'RKT',
  description: '',
  supplyTokens: '1,000,000',
  imageFile: png,
  imageUrl: '',
  website_url: 'https://rocket.example',
  x_url: '',
  telegram_url: '',
  discord_url: '',
  firstBuy: '0.5',
};
const CREATOR = '0xa0ee7a142d267c1f36714e4a8f75612f20a79720';

describe('validateLaunchForm (the server’s draft rules in the browser)', () => {
  it('turns whole tokens into base units and the first buy into native base units', () => {
    const result = validateLaunchForm(valid, CREATOR);
    if (!result.ok) throw new Error(JSON.stringify(result.errors));
    expect(result.launch.initialSupply).toBe(10n ** 24n);
    expect(result.launch.firstBuy).toBe(5n * 10n ** 17n);
    expect(result.launch.fields).toEqual({
      name: 'Rocket',
      symbol: 'RKT',
      initial_supply: (10n ** 24n).toString(),
      website_url: 'https://rocket.example',
      creator: CREATOR,
    });
  });

  it.each([
    [{ symbol: 'SEVENTEEN_CHARS_X' }, 'symbol', 'symbol must be at most 16 bytes of UTF-8'],
    [{ name: 'é'.repeat(33) }, 'name', 'name must be at most 64 bytes of UTF-8'],
    [{ supplyTokens: '999' }, 'supplyTokens', 'initial_supply must be from'],
    [{ supplyTokens: '12.5' }, 'supplyTokens', 'whole number of tokens'],
    [{ website_url: 'javascript:alert(1)' }, 'website_url', 'website_url must be an http(s) URL'],
    [{ x_url: 'https://user:pw@x.com/a' }, 'x_url', 'without credentials'],
    [{ firstBuy: '1.2.3' }, 'firstBuy', 'first buy must be'],
    [{ imageFile: null }, 'image', 'choose an image file or enter an image URL'],
    [{ imageUrl: 'https://img.example/a.png' }, 'image', 'not both'],
    [{ imageFile: new File(['x'], 'a.svg', { type: 'image/svg+xml' }) }, 'image', 'PNG, JPEG, WebP or GIF'],
  ] as const)('%j is refused on %s with the rule text', (change, field, text) => {
    const result = validateLaunchForm({ ...valid, ...change }, CREATOR);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[field]).toContain(text);
  });
});
