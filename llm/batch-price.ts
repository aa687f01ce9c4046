import type { ModelRecord } from './model-record.ts';
import { costUsd } from './registry.ts';
import type { Usage } from './types.ts';

/** What a batch endpoint charges relative to the ordinary one: OpenAI's Batch API and Anthropic's Message Batches both bill half. */
export const BATCH_DISCOUNT = 0.5;

/** The cost in USD of a call answered through the model's batch endpoint. */
export function batchCostUsd(model: Pick<ModelRecord, 'price'>, usage: Usage): number {
  return costUsd(model, usage) * BATCH_DISCOUNT;
}
