import { useId } from 'preact/hooks';
import type { Agent, Brand } from '../../api.js';

/**
 * The inputs form of an agent, built from what `GET /v1/agents` says about each input (name,
 * type, required, description), so a new input or agent needs no change here. Values are kept
 * as the person typed them; `inputsFor` turns them into the body the API takes.
 */
export type InputValues = Record<string, string | string[]>;

type InputDoc = Agent['inputs'][number];

/** `array of x | linkedin` → ['x', 'linkedin']; null for other types. */
const choicesOf = (doc: InputDoc) =>
  doc.type.startsWith('array of ') ? doc.type.slice('array of '.length).split(' | ') : null;
const isInteger = (doc: InputDoc) => doc.type.startsWith('integer');
const isBrand = (doc: InputDoc) => doc.name === 'brandId';

/** The starting values: the current brand for `brandId`, everything else empty. */
export function initialInputs(agent: Agent, brand: Brand | null, saved: Record<string, unknown> = {}) {
  const values: InputValues = {};
  for (const doc of agent.inputs) {
    const had = saved[doc.name];
    if (choicesOf(doc)) values[doc.name] = Array.isArray(had) ? had.map(String) : [];
    else if (had !== undefined && had !== null) values[doc.name] = String(had);
    else values[doc.name] = isBrand(doc) && brand ? brand.id : '';
  }
  return values;
}

/** The `inputs` body: empty optional inputs are left out so the agent's defaults apply. */
export function inputsFor(agent: Agent, values: InputValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const doc of agent.inputs) {
    const v = values[doc.name];
    if (Array.isArray(v)) {
      if (v.length) body[doc.name] = v;
    } else if (v?.trim()) {
      body[doc.name] = isInteger(doc) && /^-?\d+$/.test(v.trim()) ? Number(v.trim()) : v.trim();
    }
  }
  return body;
}

export function InputFields(props: {
  agent: Agent;
  values: InputValues;
  brands: Brand[];
  onChange(values: InputValues): void;
}) {
  const base = useId();
  const set = (name: string, value: string | string[]) => props.onChange({ ...props.values, [name]: value });
  return (
    <>
      {props.agent.inputs.map((doc) => {
        const id = `${base}-${doc.name}`;
        const hint = `${id}-hint`;
        const label = `${doc.name}${doc.required ? '' : ' (optional)'}`;
        const choices = choicesOf(doc);
        const value = props.values[doc.name];
        if (choices) {
          const picked = Array.isArray(value) ? value : [];
          return (
            <fieldset key={doc.name} class="ops-field" aria-describedby={hint}>
              <legend>{label}</legend>
              <span class="ops-choices">
                {choices.map((c) => (
                  <label key={c} class="ops-check">
                    <input
                      type="checkbox"
                      checked={picked.includes(c)}
                      onChange={(e) =>
                        set(
                          doc.name,
                          (e.target as HTMLInputElement).checked
                            ? [...picked, c]
                            : picked.filter((p) => p !== c),
                        )
                      }
                    />
                    {c}
                  </label>
                ))}
              </span>
              <small id={hint}>{doc.description}</small>
            </fieldset>
          );
        }
        if (isBrand(doc) && props.brands.length > 0) {
          return (
            <div key={doc.name} class="ops-field">
              <label for={id}>Brand</label>
              <select
                id={id}
                aria-describedby={hint}
                value={typeof value === 'string' ? value : ''}
                onChange={(e) => set(doc.name, (e.target as HTMLSelectElement).value)}
              >
                {props.brands.map((b) => (
                  <option key={b.id} value={b.id}>
                    {b.name}
                  </option>
                ))}
              </select>
              <small id={hint}>{doc.description}</small>
            </div>
          );
        }
        return (
          <div key={doc.name} class="ops-field">
            <label for={id}>{label}</label>
            <input
              id={id}
              type="text"
              inputMode={isInteger(doc) ? 'numeric' : 'text'}
              pattern={isInteger(doc) ? '[0-9]*' : undefined}
              required={doc.required}
              aria-describedby={hint}
              value={typeof value === 'string' ? value : ''}
              onInput={(e) => set(doc.name, (e.target as HTMLInputElement).value)}
            />
            <small id={hint}>
              {doc.description} <span class="type">({doc.type})</span>
            </small>
          </div>
        );
      })}
    </>
  );
}
