// Where the bytes of a wasm module go: each function's body size, by the names in the module's
// name section (build with names kept: wasm-bindgen's output, or `wasm-opt -g`).
//   node scripts/size-profile.mjs <module.wasm> [--top N] [--group]
// --top N   the N largest functions (default 40)
// --group   totals per group of names (serde decoding, encoding, Clone, bindings, ...) instead
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--') && !/^\d+$/.test(a));
if (!file) {
  console.error('usage: node scripts/size-profile.mjs <module.wasm> [--top N] [--group]');
  process.exit(2);
}
const topIndex = args.indexOf('--top');
const top = topIndex >= 0 ? Number(args[topIndex + 1]) : 40;
const grouped = args.includes('--group');
const bytes = readFileSync(file);

let pos = 8;
const u32 = () => {
  let result = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[pos++];
    result += (byte & 0x7f) * 2 ** shift;
    if (byte < 0x80) return result;
    shift += 7;
  }
};
const text = (length) => {
  const s = bytes.toString('utf8', pos, pos + length);
  pos += length;
  return s;
};

let importedFunctions = 0;
const bodies = [];
const names = new Map();
while (pos < bytes.length) {
  const id = bytes[pos++];
  const size = u32();
  const end = pos + size;
  if (id === 2) {
    for (let count = u32(); count > 0; count--) {
      text(u32());
      text(u32());
      const kind = bytes[pos++];
      if (kind === 0) {
        importedFunctions++;
        u32();
      } else if (kind === 1) {
        pos++;
        const flags = u32();
        u32();
        if (flags & 1) u32();
      } else if (kind === 2) {
        const flags = u32();
        u32();
        if (flags & 1) u32();
      } else if (kind === 3) {
        pos += 2;
      } else {
        u32();
        u32();
      }
    }
  } else if (id === 10) {
    for (let count = u32(); count > 0; count--) {
      const length = u32();
      bodies.push(length);
      pos += length;
    }
  } else if (id === 0) {
    const name = text(u32());
    if (name === 'name') {
      while (pos < end) {
        const sub = bytes[pos++];
        const subSize = u32();
        const subEnd = pos + subSize;
        if (sub === 1) {
          for (let count = u32(); count > 0; count--) {
            const index = u32();
            names.set(index, text(u32()));
          }
        }
        pos = subEnd;
      }
    }
  }
  pos = end;
}

const total = bodies.reduce((a, b) => a + b, 0);
const functions = bodies.map((size, i) => ({
  size,
  name: (names.get(i + importedFunctions) ?? `func[${i + importedFunctions}]`).replace(/::h[0-9a-f]{16}$/, ''),
}));
const percent = (n) => ((100 * n) / total).toFixed(1).padStart(5) + '%';

/** The groups a reader can act on; the first pattern a name matches wins. */
const GROUPS = [
  ['decoding of wire types (protocol::decode, generated decoders, serde adapters)', /(protocol::decode::|protocol::tagged::decode|Decode>::decode|WireStruct>::decode_members|wire::(field|unknown|missing|duplicate|decode_)|UnknownVariant>::from_rest|as serde(_core)?::de::Deserialize>|Visitor>::visit_|::de::|__FieldVisitor|DeserializeSeed)/],
  ['serde_json (parser, writer, Value)', /serde_json::/],
  ['encoding of wire types (protocol::encode, generated encoders)', /(protocol::encode::|Encode>::encode|EncodeMembers>::encode_members|::encode_field|as serde(_core)?::ser::Serialize>|Serialize for|::ser::)/],
  ['Clone / PartialEq / Drop', /(as core::clone::Clone>|as core::cmp::PartialEq>|drop_in_place|clone_field_from)/],
  ['formatting (core::fmt)', /(core(\[[0-9a-f]+\])?::fmt::|fmt::Display>::fmt|flt2dec|zmij|escape_debug)/],
  ['wasm bindings (wasm_bindgen, js_sys, web_sys, gloo, export shims)', /(wasm_bindgen|js_sys|web_sys|gloo_|__wbg|__wbindgen|externref shim|multivalue shim|^[a-z]+_[a-zA-Z]+$)/],
  ['client engine (src/client)', /ahp_wasm::client::/],
  ['bindings layer (src/wasm)', /ahp_wasm::wasm::/],
  ['reducers (src/reduce)', /ahp_wasm::reduce::/],
  ['mirror (src/sync)', /ahp_wasm::sync::/],
  ['protocol (checks, json paths, params)', /ahp_wasm::protocol::/],
  ['alloc, core, std', /(\b(alloc|core|std)(\[[0-9a-f]+\])?::|hashbrown|indexmap|dlmalloc|__rustc|__rdl_|<char>|<str>)/],
];

if (grouped) {
  const totals = new Map(GROUPS.map(([label]) => [label, 0]));
  totals.set('other', 0);
  for (const { name, size } of functions) {
    const group = GROUPS.find(([, pattern]) => pattern.test(name));
    const label = group ? group[0] : 'other';
    totals.set(label, totals.get(label) + size);
  }
  for (const [label, size] of [...totals].sort((a, b) => b[1] - a[1])) {
    console.log(`${String(size).padStart(9)} ${percent(size)}  ${label}`);
  }
} else {
  for (const { name, size } of functions.sort((a, b) => b.size - a.size).slice(0, top)) {
    console.log(`${String(size).padStart(9)} ${percent(size)}  ${name.slice(0, 160)}`);
  }
}
console.log(`${String(total).padStart(9)} 100.0%  code section, ${bodies.length} functions (${file})`);
