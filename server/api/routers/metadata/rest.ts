import { z } from 'zod';
import { draftResponse } from '../../../metadata/create-draft';
import { readDraftUpload } from '../../../metadata/multipart';
import { defineRestRoute } from '../../rest/define';

export const metadataRestRoutes = [
  defineRestRoute({
    method: 'POST',
    path: '/api/v1/token-metadata',
    operationId: 'createTokenMetadataDraft',
    summary: 'Upload a metadata draft',
    description:
      'multipart/form-data with name (≤ 64 bytes), symbol (≤ 16 bytes), initial_supply (integer text, base units with 18 decimals, 10^21 to 10^33), optional description (≤ 1000 bytes), website_url, x_url, telegram_url, discord_url (http/https), optional creator (address), and exactly one of image (PNG, JPEG, WebP or GIF file, ≤ 5 MB, judged by content) or image_url (public https). Answers 201 with the draft id, the metadata_hash the launch transaction must carry, and the stored image URL. Both image and image_url, or neither: 400.',
    tags: ['metadata'],
    input: z.object({}),
    output: draftResponse,
    errors: [
      'invalid_parameter',
      'invalid_address',
      'invalid_image',
      'image_url_forbidden',
      'payload_too_large',
      'unsupported_media_type',
      'rate_limited',
    ],
    successStatus: 201,
    requestBody: {
      contentType: 'multipart/form-data',
      schema: {
        type: 'object',
        required: ['name', 'symbol', 'initial_supply'],
        properties: {
          name: { type: 'string', description: 'At most 64 bytes of UTF-8' },
          symbol: { type: 'string', description: 'At most 16 bytes of UTF-8' },
          initial_supply: {
            type: 'string',
            pattern: '^[1-9][0-9]*$',
            description: 'Base units (18 decimals), 10^21 to 10^33',
          },
          description: { type: 'string', description: 'At most 1000 bytes of UTF-8' },
          image: { type: 'string', format: 'binary', description: 'PNG, JPEG, WebP or GIF, at most 5 MB' },
          image_url: { type: 'string', format: 'uri', description: 'Public https URL of the image' },
          website_url: { type: 'string', format: 'uri' },
          x_url: { type: 'string', format: 'uri' },
          telegram_url: { type: 'string', format: 'uri' },
          discord_url: { type: 'string', format: 'uri' },
          creator: {
            type: 'string',
            pattern: '^0x[0-9a-fA-F]{40}$',
            description: 'If set, only this address may finalize the draft',
          },
        },
      },
    },
    readBody: readDraftUpload,
    call: (caller, input) => caller.metadata.createDraft(input as never),
  }),
];
