import { z } from 'zod';
import { addressParam, blockNumberParam } from './common';

/** The query of `GET /api/v1/stream`: malformed is a 400 in the REST error shape, never ignored. */
export const streamQuery = z.object({
  token: addressParam.optional(),
  since: blockNumberParam('since', 'Resume after this block (as Last-Event-ID does).'),
});
