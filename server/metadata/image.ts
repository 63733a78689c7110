import { fileTypeFromBuffer } from 'file-type';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { imageFormats, MAX_IMAGE_BYTES } from '../../shared/metadata/draft-fields';
import { AppError } from '../errors';

export { imageFormats, MAX_IMAGE_BYTES };
/** Decoding bound: 40 megapixels (e.g. 8000 × 5000); a 20000 × 20000 header is refused unread. */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** Side of the square PNG thumbnail stored beside every image: what share cards decode. */
export const THUMBNAIL_SIZE = 256;
/**
 * Decoding bound where a logo is drawn (share cards): an avatar's size. A stored thumbnail is
 * 256 × 256; an image stored before thumbnails existed is drawn only if it is within this bound
 * (1024 × 1024), so a card never decodes a 40-megapixel original.
 */
export const LOGO_MAX_PIXELS = 1024 * 1024;

export type ImageContentType = keyof typeof imageFormats;

export interface ProcessedImage {
  bytes: Buffer;
  contentType: ImageContentType;
  extension: string;
  width: number;
  height: number;
  frames: number;
  /** The first frame, cropped to a THUMBNAIL_SIZE square PNG (never enlarged). */
  thumbnail: Buffer;
}

const invalid = (message: string) => new AppError('invalid_image', message);

/**
 * Turns untrusted bytes into a safe stored image. The type comes from magic bytes only (never
 * from a client's Content-Type or file name); decoding is bounded in pixels; the image is
 * re-encoded in its own format, which drops EXIF/XMP/ICC metadata (GPS included) and anything
 * appended after the image data (PNG+ZIP polyglots), while keeping animation frames.
 */
export async function processImage(input: Buffer): Promise<ProcessedImage> {
  if (input.length > MAX_IMAGE_BYTES)
    throw new AppError('payload_too_large', `image exceeds ${MAX_IMAGE_BYTES} bytes`);
  const detected = await fileTypeFromBuffer(input);
  if (!detected || !(detected.mime in imageFormats)) {
    throw invalid('image must be a PNG, JPEG, WebP or GIF (judged by its content, not its name or type)');
  }
  const contentType = detected.mime as ImageContentType;
  const animated = contentType === 'image/gif' || contentType === 'image/webp';
  let pipeline: Sharp;
  let metadata: Metadata;
  try {
    pipeline = sharp(input, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error', animated });
    metadata = await pipeline.metadata();
  } catch (error) {
    throw invalid(`image could not be read: ${firstLine(error)}`);
  }
  const width = metadata.width ?? 0;
  const height = metadata.pageHeight ?? metadata.height ?? 0;
  if (width === 0 || height === 0) throw invalid('image has no dimensions');
  if (width * height * (metadata.pages ?? 1) > MAX_IMAGE_PIXELS * 4)
    throw invalid('image has too many pixels');
  let bytes: Buffer;
  let thumbnail: Buffer;
  try {
    const oriented = contentType === 'image/jpeg' ? pipeline.rotate() : pipeline;
    const encoded =
      contentType === 'image/png'
        ? oriented.png()
        : contentType === 'image/jpeg'
          ? oriented.jpeg({ quality: 90 })
          : contentType === 'image/webp'
            ? oriented.webp({ quality: 90 })
            : oriented.gif();
    // The thumbnail decodes the input once more, alongside the re-encoding (sharp runs both on
    // its thread pool): an upload pays for it once so no card ever decodes the original.
    [bytes, thumbnail] = await Promise.all([encoded.toBuffer(), squareThumbnail(input, contentType)]);
  } catch (error) {
    throw invalid(`image could not be decoded: ${firstLine(error)}`);
  }
  if (bytes.length > MAX_IMAGE_BYTES)
    throw new AppError('payload_too_large', `image exceeds ${MAX_IMAGE_BYTES} bytes after re-encoding`);
  return {
    bytes,
    contentType,
    extension: imageFormats[contentType].extension,
    width,
    height,
    frames: metadata.pages ?? 1,
    thumbnail,
  };
}

/** The first frame of an accepted image as a THUMBNAIL_SIZE square PNG, upright, without metadata. */
function squareThumbnail(input: Buffer, contentType: ImageContentType): Promise<Buffer> {
  const first = sharp(input, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error', animated: false });
  return (contentType === 'image/jpeg' ? first.rotate() : first)
    .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'cover', withoutEnlargement: true })
    .png()
    .toBuffer();
}

/**
 * A logo as a `side` square PNG, decoded under LOGO_MAX_PIXELS: from a stored thumbnail, or
 * from an original small enough to be an avatar. Null when the image is larger or unreadable:
 * the caller draws no logo rather than decoding megapixels on a request.
 */
export async function logoPng(stored: Buffer, side: number): Promise<Buffer | null> {
  try {
    return await sharp(stored, { limitInputPixels: LOGO_MAX_PIXELS, failOn: 'error', animated: false })
      .resize(side, side, { fit: 'cover' })
      .png()
      .toBuffer();
  } catch {
    return null;
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]?.slice(0, 160) ?? 'unknown error';
}
