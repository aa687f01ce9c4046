import { anthropic } from './anthropic-provider.ts';
import { google } from './google-provider.ts';
import { local } from './local-provider.ts';
import { openai } from './openai-provider.ts';
import type { ProviderSpec } from './provider-spec.ts';

/**
 * The providers the harness ships, in the order `hyperagents models` lists them: the one list that names
 * them. A new provider is one file declaring its `ProviderSpec`, added here.
 */
export const BUILT_IN_PROVIDERS: readonly ProviderSpec[] = [openai, anthropic, google, local];
