// A small JSON Schema checker for client tool inputs: the keywords tool schemas use in practice
// (type, properties, required, additionalProperties, items, enum, const, minimum/maximum,
// minLength/maxLength, minItems/maxItems, anyOf/oneOf/allOf), without code generation (`eval`
// is refused by strict CSPs). Unknown keywords are ignored, as JSON Schema says.
// Hand-written; scripts/build-pkg.sh copies it into pkg/.

const MAX_ERRORS = 8;

function typeOf(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeMatches(want, value) {
  const got = typeOf(value);
  return want === got || (want === 'number' && got === 'integer');
}

function walk(schema, value, path, errors, depth) {
  if (errors.length >= MAX_ERRORS || schema === true || schema == null || typeof schema !== 'object') return;
  if (schema === false) {
    errors.push(`${path || 'input'}: not allowed`);
    return;
  }
  if (depth > 64) return;
  const at = path || 'input';
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((t) => typeMatches(t, value))) {
      errors.push(`${at}: expected ${types.join(' or ')}, got ${typeOf(value)}`);
      return;
    }
  }
  if (schema.const !== undefined && JSON.stringify(schema.const) !== JSON.stringify(value)) {
    errors.push(`${at}: must be ${JSON.stringify(schema.const)}`);
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    errors.push(`${at}: must be one of ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${at}: must be >= ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${at}: must be <= ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) errors.push(`${at}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) errors.push(`${at}: longer than ${schema.maxLength}`);
  }
  if (Array.isArray(value)) {
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) errors.push(`${at}: fewer than ${schema.minItems} items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) errors.push(`${at}: more than ${schema.maxItems} items`);
    if (schema.items && typeof schema.items === 'object') {
      value.forEach((item, i) => walk(schema.items, item, `${at}[${i}]`, errors, depth + 1));
    }
  }
  if (typeOf(value) === 'object') {
    const props = schema.properties && typeof schema.properties === 'object' ? schema.properties : {};
    for (const name of Array.isArray(schema.required) ? schema.required : []) {
      if (!Object.hasOwn(value, name)) errors.push(`${at}: missing required property \`${name}\``);
    }
    for (const [name, v] of Object.entries(value)) {
      const child = path ? `${path}.${name}` : name;
      if (Object.hasOwn(props, name)) walk(props[name], v, child, errors, depth + 1);
      else if (schema.additionalProperties === false) errors.push(`${at}: unknown property \`${name}\``);
      else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        walk(schema.additionalProperties, v, child, errors, depth + 1);
      }
    }
  }
  const passes = (s) => {
    const sub = [];
    walk(s, value, path, sub, depth + 1);
    return sub.length === 0;
  };
  if (Array.isArray(schema.allOf)) for (const s of schema.allOf) walk(s, value, path, errors, depth + 1);
  if (Array.isArray(schema.anyOf) && !schema.anyOf.some(passes)) errors.push(`${at}: matches none of anyOf`);
  if (Array.isArray(schema.oneOf) && schema.oneOf.filter(passes).length !== 1) errors.push(`${at}: must match exactly one of oneOf`);
}

/**
 * The reasons `value` does not satisfy `schema` (empty: it does). At most a few reasons, each
 * naming the path (`input`, `path`, `items[2].name`).
 * @param {unknown} schema @param {unknown} value @returns {string[]}
 */
export function schemaErrors(schema, value) {
  const errors = [];
  walk(schema, value, '', errors, 0);
  return errors;
}
