/** How agent code is contained (`--sandbox`; docs/sandbox.md): the modes a run may ask for. */
export const SANDBOX_MODES = ['auto', 'bwrap', 'none'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];
