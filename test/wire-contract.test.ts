import { describe, expect, it } from 'vitest';
import { modelErrorTypeSchema } from '../agents/index.ts';
import { ErrorTypeSchema } from '../llm/index.ts';

// The agent core is copied into every variant and imports only itself, so it keeps its own copy of the
// gateway's wire types. The copies must agree, or an agent would refuse an error the gateway sends.
describe('the agent core and the gateway speak the same wire format', () => {
  it('knows every kind of model error the gateway answers with, and no other', () => {
    expect([...modelErrorTypeSchema.options].sort()).toEqual([...ErrorTypeSchema.options].sort());
  });
});
