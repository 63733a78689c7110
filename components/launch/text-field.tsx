import type { ReactNode } from 'react';

/** A labelled input whose error is announced with it (aria-describedby) and marks it invalid. */
export function TextField({
  id,
  label,
  hint,
  error,
  multiline = false,
  ...input
}: {
  id: string;
  label: string;
  hint?: ReactNode;
  error: string | undefined;
  multiline?: boolean;
  value: string;
  onChange: (value: string) => void;
  type?: 'text' | 'url';
  inputMode?: 'numeric' | 'decimal';
  placeholder?: string;
  disabled?: boolean;
  required?: boolean;
}) {
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ');
  const common = {
    id,
    name: id,
    value: input.value,
    placeholder: input.placeholder,
    disabled: input.disabled,
    required: input.required,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy || undefined,
  };
  return (
    <div className="launch-field">
      <label htmlFor={id}>{label}</label>
      {multiline ? (
        <textarea {...common} rows={3} onChange={(event) => input.onChange(event.target.value)} />
      ) : (
        <input
          {...common}
          type={input.type ?? 'text'}
          inputMode={input.inputMode}
          onChange={(event) => input.onChange(event.target.value)}
        />
      )}
      {hint ? (
        <span id={`${id}-hint`} className="small muted">
          {hint}
        </span>
      ) : null}
      {error ? (
        <span id={`${id}-error`} className="field-error">
          {error}
        </span>
      ) : null}
    </div>
  );
}
