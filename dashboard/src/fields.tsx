/** Labelled form controls: every control the dashboard shows has a visible label tied to it. */

/** One choice of a {@link SelectField}: its value and the text shown. */
export type Choice = readonly [value: string, text: string];

/** The reset choices of a key's spending limit. */
export const LIMIT_RESETS: readonly Choice[] = [
  ['', 'never'],
  ['daily', 'daily'],
  ['weekly', 'weekly'],
  ['monthly', 'monthly'],
];

/** A `<select>` with its label, in a `.field` block. */
export function SelectField({
  id,
  label,
  value,
  choices,
  onChange,
}: {
  id: string;
  label: string;
  value: string;
  choices: readonly Choice[];
  onChange: (value: string) => void;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {choices.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}
