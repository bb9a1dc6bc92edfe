import { ComponentChildren } from 'preact';

/** A checkbox with its label and, when given, a help sentence read with it by screen readers. */
export function CheckboxField({
  id,
  checked,
  onChange,
  label,
  help,
}: {
  id: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  label: ComponentChildren;
  help?: ComponentChildren;
}) {
  return (
    <div class="flag">
      <input
        type="checkbox"
        id={id}
        checked={checked}
        onChange={(e) => onChange((e.target as HTMLInputElement).checked)}
        aria-describedby={help ? `${id}-help` : undefined}
      />
      <label for={id}>{label}</label>
      {help && (
        <p id={`${id}-help`} class="help">
          {help}
        </p>
      )}
    </div>
  );
}
