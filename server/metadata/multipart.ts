import { Busboy } from '@fastify/busboy';
import { AppError } from '../errors';
import { MAX_IMAGE_BYTES } from './image';

/** Room for the text fields and multipart framing around the largest allowed image. */
export const MAX_UPLOAD_BYTES = MAX_IMAGE_BYTES + 64 * 1024;
const MAX_FIELD_BYTES = 4096;

export interface DraftUpload {
  fields: Record<string, string>;
  file?: { bytes: Buffer; filename: string };
}

const tooLarge = () =>
  new AppError(
    'payload_too_large',
    `upload exceeds ${MAX_UPLOAD_BYTES} bytes (image at most ${MAX_IMAGE_BYTES})`,
  );

/**
 * Reads a multipart/form-data body as a stream. Limits hold while reading, with or without a
 * Content-Length: the body is cut off at the cap and never buffered beyond it, so memory does
 * not grow with what a client sends. One file (field `image`), 16 parts, 4 KiB per text field.
 */
export async function readDraftUpload(request: Request): Promise<DraftUpload> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw new AppError('unsupported_media_type', 'send multipart/form-data');
  }
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > MAX_UPLOAD_BYTES) throw tooLarge();
  if (!request.body) throw new AppError('invalid_parameter', 'empty body');

  const reader = request.body.getReader();
  let parser: InstanceType<typeof Busboy>;
  try {
    parser = new Busboy({
      headers: { 'content-type': contentType },
      limits: {
        files: 1,
        parts: 16,
        fields: 15,
        fieldSize: MAX_FIELD_BYTES,
        fileSize: MAX_IMAGE_BYTES,
        headerPairs: 20,
      },
    });
  } catch {
    throw new AppError('invalid_parameter', 'malformed multipart/form-data header');
  }

  return new Promise<DraftUpload>((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: DraftUpload['file'];
    let failed = false;
    const fail = (error: AppError) => {
      if (failed) return;
      failed = true;
      reader.cancel().catch(() => {});
      reject(error);
    };

    parser.on('field', (name: string, value: string, _nameTruncated: boolean, valueTruncated: boolean) => {
      if (valueTruncated)
        return fail(new AppError('payload_too_large', `field ${name} exceeds ${MAX_FIELD_BYTES} bytes`));
      if (Object.hasOwn(fields, name))
        return fail(
          new AppError('invalid_parameter', `field ${name} given more than once`, [
            { field: name, message: 'given more than once' },
          ]),
        );
      fields[name] = value;
    });
    parser.on(
      'file',
      (name: string, stream: NodeJS.ReadableStream & { truncated?: boolean }, filename: string) => {
        if (name !== 'image') {
          stream.resume();
          return fail(
            new AppError('invalid_parameter', `unexpected file field ${name}; the image goes in "image"`, [
              { field: name, message: 'unexpected file' },
            ]),
          );
        }
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('limit', () =>
          fail(new AppError('payload_too_large', `image exceeds ${MAX_IMAGE_BYTES} bytes`)),
        );
        stream.on('end', () => {
          if (!stream.truncated) file = { bytes: Buffer.concat(chunks), filename };
        });
      },
    );
    parser.on('filesLimit', () =>
      fail(
        new AppError('invalid_parameter', 'send exactly one image file', [
          { field: 'image', message: 'more than one file' },
        ]),
      ),
    );
    parser.on('partsLimit', () => fail(new AppError('invalid_parameter', 'too many form parts')));
    parser.on('fieldsLimit', () => fail(new AppError('invalid_parameter', 'too many form fields')));
    parser.on('error', () => fail(new AppError('invalid_parameter', 'malformed multipart/form-data body')));
    parser.on('finish', () => {
      if (!failed) resolve({ fields, ...(file ? { file } : {}) });
    });

    (async () => {
      let total = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (failed) return;
        if (done) break;
        total += value.byteLength;
        if (total > MAX_UPLOAD_BYTES) return fail(tooLarge());
        if (!parser.write(Buffer.from(value.buffer, value.byteOffset, value.byteLength))) {
          await new Promise((resume) => parser.once('drain', resume));
        }
      }
      parser.end();
    })().catch(() => fail(new AppError('invalid_parameter', 'the upload was interrupted')));
  });
}
