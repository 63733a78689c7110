import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { draftResponse } from '../../../../shared/metadata/api';
import { createTestDatabase, type TestDatabase } from '../../../../test/database';
import { parseConfig } from '../../../config';
import type { DatabaseHandle } from '../../../db/client';
import { createImageFetcher } from '../../../metadata/fetch-image';
import { createFilesystemStore } from '../../../objects/store';
import { toAppError } from '../../rest/errors';
import type { Context } from '../../trpc';
import { metadataRoutes } from './rest';

// The REST dispatcher parses a write's input (the body its route read in `body`) by the route's
// schema and runs its function; this test does the same, with a real (embedded) database and
// object store, and checks what a malformed input turns into.
describe('createTokenMetadataDraft input: the parsed upload is checked by its zod schema', () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let context: Context;
  const route = metadataRoutes.createTokenMetadataDraft;
  /** The route as the dispatcher runs it: parse, then run (a parse error rejects, as there). */
  const createDraft = (input: unknown) =>
    Promise.resolve().then(() => route.run({ context }, route.parse(input as Record<string, unknown>)));
  let png: Buffer;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'launchdex-router-'));
  const fields = { name: 'Caller Draft', symbol: 'CALL', initial_supply: (10n ** 27n).toString() };

  /** The public error a rejected call answers with, as the REST adapter maps it. */
  const publicError = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error, 'the call should have been refused').toBeDefined();
    const { appError, unexpected } = toAppError(error);
    return { status: appError.status, code: appError.code, details: appError.details ?? [], unexpected };
  };

  beforeAll(async () => {
    database = await createTestDatabase('pglite');
    handle = await database.open();
    png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#224466' } })
      .png()
      .toBuffer();
    context = {
      transport: 'caller',
      cursorSecret: 'router-test-cursor-secret',
      db: handle.db,
      config: parseConfig({ DATA_DIR: dataDir }),
      clock: () => new Date(),
      objects: async () => createFilesystemStore(path.join(dataDir, 'objects')),
      // Never reached: these calls carry files, and no resolver answers anything.
      fetchImage: createImageFetcher({
        resolver: async () => {
          throw new Error('no DNS in this test');
        },
      }),
      chain: () => undefined,
    };
  }, 60_000);

  afterAll(async () => {
    await handle?.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a draft from a well-formed upload (bytes as a Uint8Array, not only a Buffer)', async () => {
    const draft = draftResponse.parse(
      await createDraft({ body: { fields, file: { bytes: new Uint8Array(png), filename: 'logo.png' } } }),
    );
    expect(draft).toMatchObject({ name: 'Caller Draft', symbol: 'CALL' });
    expect(draft.draft_id).toMatch(/^d_/);
  });

  it.each([
    ['no body', {}],
    ['a null body', { body: null }],
    ['a body without fields', { body: { file: { bytes: new Uint8Array(1), filename: 'a.png' } } }],
    ['fields as a string', { body: { fields: 'name=x' } }],
    ['fields as an array', { body: { fields: ['x'] } }],
    ['a number as a field value', { body: { fields: { ...fields, initial_supply: 10 ** 27 } } }],
    ['an object as a field value', { body: { fields: { ...fields, name: { toString: 'x' } } } }],
    ['file bytes as a string', { body: { fields, file: { bytes: 'iVBORw0KGgo=', filename: 'a.png' } } }],
    [
      'file bytes as a number array',
      { body: { fields, file: { bytes: [137, 80, 78, 71], filename: 'a.png' } } },
    ],
    ['a file without a filename', { body: { fields, file: { bytes: new Uint8Array(4) } } }],
    ['a file that is null', { body: { fields, file: null } }],
  ])('answers 400 invalid_parameter (never a 500) for %s', async (_case, input) => {
    const error = await publicError(createDraft(input));
    expect(error).toMatchObject({ status: 400, code: 'invalid_parameter', unexpected: false });
    expect(error.details.length).toBeGreaterThan(0);
  });

  it('applies the draft text rules to fields given as parsed fields, per field', async () => {
    const error = await publicError(
      createDraft({
        body: {
          fields: { ...fields, name: '  ', symbol: 'C\u202eL', description: 'lone \ud800 surrogate' },
          file: { bytes: new Uint8Array(png), filename: 'logo.png' },
        },
      }),
    );
    expect(error).toMatchObject({ status: 400, code: 'invalid_parameter', unexpected: false });
    expect([...new Set(error.details.map((detail) => detail.field))].sort()).toEqual([
      'description',
      'name',
      'symbol',
    ]);
  });
});
