/** A headline figure (a term and its value) inside a `<dl class="figures">`. */
export function Figure({ label, value }: { label: string; value: string }) {
  return (
    <div class="figure">
      <dt>{label}</dt>
      <dd>{value}</dd>
    </div>
  );
}
