/** The filter rows of the Usage explorer: dimension, operator, value (comma-separated for lists). */
import { SelectField, type Choice } from '../fields';
import type { AnalyticsMeta } from '../types';

/** The meta's dimensions as select choices. */
export function dimensionChoices(meta: AnalyticsMeta['data']): Choice[] {
  return meta.dimensions.map((d) => [d.name, d.display_label]);
}

/** One filter as the form holds it. */
export interface Filter {
  field: string;
  operator: string;
  value: string;
}

/** The query's `filters` from the form's rows. */
export function filterBody(filters: Filter[]) {
  return filters.map((f) => ({
    field: f.field,
    operator: f.operator,
    value:
      f.operator === 'in' || f.operator === 'not_in'
        ? f.value
            .split(',')
            .map((v) => v.trim())
            .filter(Boolean)
        : f.value,
  }));
}

/** The editable list of filters. */
export function FilterRows({
  meta,
  filters,
  onChange,
}: {
  meta: AnalyticsMeta['data'];
  filters: Filter[];
  onChange: (f: Filter[]) => void;
}) {
  const update = (i: number, patch: Partial<Filter>) =>
    onChange(filters.map((f, j) => (j === i ? { ...f, ...patch } : f)));
  return (
    <fieldset class="filters">
      <legend>Filters</legend>
      {filters.length === 0 && <p class="help">No filters: every request of the window counts.</p>}
      {filters.map((f, i) => (
        <div class="row" key={i}>
          <SelectField
            id={`filter-${i}-field`}
            label={`Filter ${i + 1}: dimension`}
            value={f.field}
            choices={dimensionChoices(meta)}
            onChange={(v) => update(i, { field: v })}
          />
          <SelectField
            id={`filter-${i}-op`}
            label={`Filter ${i + 1}: operator`}
            value={f.operator}
            choices={meta.operators.map((o): Choice => [o.name, o.name])}
            onChange={(v) => update(i, { operator: v })}
          />
          <div class="field">
            <label for={`filter-${i}-value`}>
              Filter {i + 1}: value{f.operator === 'in' || f.operator === 'not_in' ? 's, comma-separated' : ''}
            </label>
            <input
              id={`filter-${i}-value`}
              required
              value={f.value}
              onInput={(e) => update(i, { value: e.currentTarget.value })}
            />
          </div>
          <button
            type="button"
            onClick={() => onChange(filters.filter((_f, j) => j !== i))}
            aria-label={`Remove filter ${i + 1}`}
          >
            Remove
          </button>
        </div>
      ))}
      <button
        type="button"
        onClick={() =>
          onChange([...filters, { field: meta.dimensions[0]?.name ?? 'model', operator: 'eq', value: '' }])
        }
      >
        Add a filter
      </button>
    </fieldset>
  );
}
