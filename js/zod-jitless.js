// Imported first by js/mcp-apps.js, so it runs before any module of ext-apps validates anything.
// ext-apps validates messages with zod, whose JIT builds validators with `new Function`: a page
// with a strict CSP (no 'unsafe-eval'; Trusted Types) refuses that and reports a violation.
// Jitless validation gives the same results without eval.
import { config } from 'zod/v4';

config({ jitless: true });
