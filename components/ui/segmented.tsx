import type { ReactNode } from 'react';

/** A row of mutually exclusive options as radio buttons (chart interval, trade side). */
export function Segmented<Value extends string>({
  legend,
  name,
  options,
  value,
  onChange,
  label = (option) => option,
  disabled = false,
}: {
  legend: string;
  name: string;
  options: readonly Value[];
  value: Value;
  onChange: (value: Value) => void;
  label?: (option: Value) => ReactNode;
  disabled?: boolean;
}) {
  return (
    <fieldset className="segmented">
      <legend className="sr-only">{legend}</legend>
      {options.map((option) => (
        <label key={option} className="segment">
          <input
            type="radio"
            name={name}
            value={option}
            checked={value === option}
            disabled={disabled}
            onChange={() => onChange(option)}
          />
          <span>{label(option)}</span>
        </label>
      ))}
    </fieldset>
  );
}
