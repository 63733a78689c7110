'use client';

import { useEffect, useState } from 'react';
import { imageFormats, MAX_IMAGE_TEXT } from '@/shared/metadata/draft-fields';

const accept = Object.keys(imageFormats).join(',');

/**
 * The token image: a local file (previewed from an object URL, never uploaded before submit) or
 * a public https URL, which is not previewed: the browser would fetch an untrusted remote image,
 * while the server fetches and checks it at upload.
 */
export function ImageField({
  file,
  url,
  error,
  disabled,
  onFile,
  onUrl,
}: {
  file: File | null;
  url: string;
  error: string | undefined;
  disabled: boolean;
  onFile: (file: File | null) => void;
  onUrl: (url: string) => void;
}) {
  const [preview, setPreview] = useState<string | null>(null);
  useEffect(() => {
    if (!file) return setPreview(null);
    const objectUrl = URL.createObjectURL(file);
    setPreview(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [file]);

  return (
    <fieldset className="launch-image">
      <legend>Image</legend>
      <div className="launch-image-row">
        <div className="launch-image-preview" aria-hidden={preview ? undefined : true}>
          {preview ? (
            // biome-ignore lint/performance/noImgElement: a local blob: preview, not an optimizable asset
            <img src={preview} alt="Preview of the chosen token logo" width={96} height={96} />
          ) : (
            <span className="muted small">No image</span>
          )}
        </div>
        <div className="launch-image-inputs">
          <label>
            Image file
            <input
              id="imageFile"
              type="file"
              accept={accept}
              disabled={disabled}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'image-error' : undefined}
              onChange={(event) => onFile(event.target.files?.[0] ?? null)}
            />
          </label>
          <span className="small muted">PNG, JPEG, WebP or GIF, at most {MAX_IMAGE_TEXT} — or</span>
          <label>
            Image URL
            <input
              id="imageUrl"
              type="url"
              value={url}
              disabled={disabled}
              placeholder="https://…"
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'image-error' : undefined}
              onChange={(event) => onUrl(event.target.value)}
            />
          </label>
          <span className="small muted">
            The server fetches a public https image at upload; it is not previewed here.
          </span>
        </div>
      </div>
      {error ? (
        <p id="image-error" className="field-error">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}
