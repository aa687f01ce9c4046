import { createBatchBook, type FakeBatch, type FakeBatchBook, type FakeBatchKnobs } from './fake-batch.ts';
import { type FakeServer, type FakeStep, type RecordedRequest, startFakeServer } from './fake-server.ts';

/**
 * A fake OpenAI server on loopback that speaks the Batch API's wire format (from OpenAI's API reference):
 * `POST /v1/files` (multipart, purpose `batch`), `POST /v1/batches`, `GET /v1/batches/{id}`,
 * `POST /v1/batches/{id}/cancel`, `GET /v1/files/{id}/content`; and `POST /v1/chat/completions`, answered
 * by the same `respond` as each batch request. Knobs: see `FakeBatchKnobs` (`fake-batch.ts`). Steps queued
 * with `enqueue` answer the next request whatever its path (e.g. a 500 on a poll).
 *
 * Output lines are `{id, custom_id, response: {status_code: 200, request_id, body}, error: null}`; errored
 * requests go to the error file with their status and error body; requests an expired or cancelled batch
 * did not run go to the error file as `batch_expired` / `batch_cancelled` (with `dropUnanswered`, nowhere).
 */
export interface FakeOpenAIBatchServer extends FakeServer {
  batches: FakeBatchBook['log'];
  /** Changes knobs from now on (e.g. `{endAfterPolls: 1}` to end a batch held pending). */
  set(knobs: Partial<FakeOpenAIKnobs>): void;
}

export interface FakeOpenAIKnobs extends FakeBatchKnobs {
  /** Leave requests an expired or cancelled batch did not run out of the error file. */
  dropUnanswered?: boolean;
}

const CREATED = 1_764_400_000;

interface StoredFile {
  text: string;
  purpose: string;
  filename: string;
}

/** The server's files, and each batch's input, output and error file. */
interface Store {
  book: FakeBatchBook;
  files: Map<string, StoredFile>;
  fileIds: Map<string, { input: string; output?: string | null; error?: string | null }>;
}

export async function startFakeOpenAIBatchServer(knobs: FakeOpenAIKnobs): Promise<FakeOpenAIBatchServer> {
  const book = createBatchBook(knobs);
  const files = new Map<string, StoredFile>();
  const store: Store = { book, files, fileIds: new Map() };
  const route = (req: RecordedRequest): FakeStep => {
    const path = req.path.replace(/\?.*$/, '');
    if (req.method === 'POST' && path === '/v1/chat/completions') return book.knobs.respond(req.body);
    if (req.method === 'POST' && path === '/v1/files') return upload(req, files);
    if (req.method === 'POST' && path === '/v1/batches') return createBatch(req.body, store);
    const content = path.match(/^\/v1\/files\/([^/]+)\/content$/);
    if (req.method === 'GET' && content) {
      const file = files.get(content[1] ?? '');
      if (!file) return notFound(`No such File object: ${content[1]}`);
      if (file.purpose === 'batch_output') book.log.resultReads += 1;
      return {
        kind: 'raw',
        status: 200,
        body: file.text,
        headers: { 'content-type': 'application/octet-stream' },
      };
    }
    const one = path.match(/^\/v1\/batches\/([^/]+)(\/cancel)?$/);
    const batch = one ? book.find(one[1] ?? '') : undefined;
    if (!one) return notFound(`fake OpenAI server: no route for ${req.method} ${path}`);
    if (!batch) return notFound(`No batch found with id '${one[1]}'.`);
    if (req.method === 'POST' && one[2]) {
      book.cancel(batch);
      return json(batchObject(batch, store));
    }
    if (req.method === 'GET' && !one[2]) {
      book.poll(batch);
      return json(batchObject(batch, store));
    }
    return notFound(`fake OpenAI server: no route for ${req.method} ${path}`);
  };
  const server = await startFakeServer({ fallback: route });
  return { ...server, batches: book.log, set: book.set };
}

function json(body: unknown, status = 200): FakeStep {
  return { kind: 'json', status, body };
}

function errorStep(
  status: number,
  message: string,
  code: string | null,
  param: string | null = null,
): FakeStep {
  return json({ error: { message, type: 'invalid_request_error', param, code } }, status);
}

const notFound = (message: string) => errorStep(404, message, null);

/** A multipart upload: the `purpose` field and the `file` part's content and name. */
function upload(req: RecordedRequest, files: Map<string, StoredFile>): FakeStep {
  const type = String(req.headers['content-type'] ?? '');
  const boundary = type.match(/boundary=(?:"([^"]+)"|([^;]+))/);
  const marker = boundary?.[1] ?? boundary?.[2];
  if (!marker || typeof req.body !== 'string')
    return errorStep(400, 'The request must be multipart/form-data.', null);
  const fields = new Map<string, { text: string; filename?: string }>();
  for (const part of req.body.split(`--${marker}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const name = head.match(/name="([^"]+)"/)?.[1];
    const filename = head.match(/filename="([^"]*)"/)?.[1];
    if (name)
      fields.set(name, {
        text: part.slice(split + 4).replace(/\r\n$/, ''),
        ...(filename ? { filename } : {}),
      });
  }
  const purpose = fields.get('purpose')?.text;
  const file = fields.get('file');
  if (!file) return errorStep(400, "Missing required parameter: 'file'.", null, 'file');
  if (purpose !== 'batch')
    return errorStep(400, `Invalid purpose '${purpose}': this fake takes batch files.`, null, 'purpose');
  const id = `file-fake${String(files.size + 1).padStart(4, '0')}`;
  const filename = file.filename ?? 'upload.jsonl';
  files.set(id, { text: file.text, purpose, filename });
  return json(fileObject(id, { text: file.text, purpose, filename }));
}

function fileObject(id: string, file: StoredFile) {
  const bytes = Buffer.byteLength(file.text);
  return {
    id,
    object: 'file',
    bytes,
    created_at: CREATED,
    filename: file.filename,
    purpose: file.purpose,
    status: 'processed',
    expires_at: null,
    status_details: null,
  };
}

function createBatch(body: unknown, store: Store): FakeStep {
  const { files, book } = store;
  const b = (body ?? {}) as { input_file_id?: string; endpoint?: string; completion_window?: string };
  if (b.completion_window !== '24h')
    return errorStep(
      400,
      "Invalid 'completion_window': only '24h' is supported.",
      'invalid_value',
      'completion_window',
    );
  if (b.endpoint !== '/v1/chat/completions')
    return errorStep(
      400,
      `This fake takes the endpoint /v1/chat/completions, not ${b.endpoint}.`,
      'invalid_value',
      'endpoint',
    );
  const file = files.get(b.input_file_id ?? '');
  if (!file) return notFound(`No such File object: ${b.input_file_id}`);
  const lines = file.text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { custom_id: string; body: unknown; url: string; method: string });
  const batch = book.create(
    `batch_fake${String(book.log.batches.length + 1).padStart(4, '0')}`,
    lines.map((l) => ({ customId: l.custom_id, body: l.body })),
  );
  store.fileIds.set(batch.id, { input: b.input_file_id ?? '' });
  const ids = new Set(lines.map((l) => l.custom_id));
  const wrongLine = lines.findIndex((l) => l.method !== 'POST' || l.url !== '/v1/chat/completions');
  if (book.knobs.failValidation || ids.size !== lines.length || wrongLine >= 0) {
    batch.ending = 'failed';
    batch.outcomes = [];
  }
  return json(batchObject(batch, store, true));
}

/** The batch as `GET /v1/batches/{id}` shows it; an ended batch's output and error files are made once. */
function batchObject(batch: FakeBatch, store: Store, justCreated = false) {
  const { book } = store;
  const ids = store.fileIds.get(batch.id) ?? { input: '' };
  const total = batch.requests.length;
  const status = justCreated && batch.ending !== 'failed' ? 'validating' : statusOf(batch);
  if (batch.outcomes && batch.ending !== 'failed' && ids.output === undefined)
    writeResults(batch, ids, store);
  const failed = (batch.outcomes ?? []).filter((o) => o.kind !== 'succeeded').length;
  const done = batch.outcomes ? total - failed : book.progress(batch);
  const at = (when: boolean) => (when ? CREATED + 60 : null);
  return {
    id: batch.id,
    object: 'batch',
    endpoint: '/v1/chat/completions',
    model: modelOf(batch),
    errors: batch.ending === 'failed' ? { object: 'list', data: validationErrors(batch) } : null,
    input_file_id: ids.input,
    completion_window: '24h',
    status,
    output_file_id: ids.output ?? null,
    error_file_id: ids.error ?? null,
    created_at: CREATED,
    in_progress_at: at(status !== 'validating' && status !== 'failed'),
    expires_at: CREATED + 86_400,
    finalizing_at: at(batch.outcomes !== undefined && batch.ending !== 'failed'),
    completed_at: at(batch.ending === 'completed'),
    failed_at: at(batch.ending === 'failed'),
    expired_at: at(batch.ending === 'expired'),
    cancelling_at: at(batch.cancelled),
    cancelled_at: at(batch.ending === 'cancelled'),
    request_counts: {
      total: batch.ending === 'failed' ? 0 : total,
      completed: batch.ending === 'failed' ? 0 : done,
      failed,
    },
    metadata: null,
  };
}

function statusOf(batch: FakeBatch): string {
  if (batch.ending) return batch.ending;
  if (batch.cancelled) return 'cancelling';
  return batch.polls <= 1 ? 'validating' : 'in_progress';
}

function modelOf(batch: FakeBatch): string | undefined {
  const body = batch.requests[0]?.body as { model?: string } | undefined;
  return body?.model;
}

function validationErrors(batch: FakeBatch) {
  const ids = new Set<string>();
  const duplicate = batch.requests.findIndex((r) => ids.size === ids.add(r.customId).size);
  if (duplicate >= 0)
    return [
      {
        code: 'duplicate_custom_id',
        line: duplicate + 1,
        message: `The custom_id for this request is a duplicate of another request.`,
        param: 'custom_id',
      },
    ];
  return [
    {
      code: 'invalid_request',
      line: 1,
      message: "Missing required parameter: 'messages'.",
      param: 'body.messages',
    },
  ];
}

function writeResults(
  batch: FakeBatch,
  ids: { output?: string | null; error?: string | null },
  store: Store,
): void {
  const { book, files } = store;
  const output: string[] = [];
  const errors: string[] = [];
  for (const [i, o] of (batch.outcomes ?? []).entries()) {
    const id = `batch_req_fake${i + 1}`;
    const request_id = `req_fake${i + 1}`;
    if (o.kind === 'succeeded')
      output.push(
        JSON.stringify({
          id,
          custom_id: o.customId,
          response: { status_code: 200, request_id, body: o.body },
          error: null,
        }),
      );
    else if (o.kind === 'errored') {
      const body = o.body ?? {
        error: {
          message: 'The server had an error while processing your request. Sorry about that!',
          type: 'server_error',
          param: null,
          code: null,
        },
      };
      errors.push(
        JSON.stringify({
          id,
          custom_id: o.customId,
          response: { status_code: o.status, request_id, body },
          error: null,
        }),
      );
    } else if (!(book.knobs as FakeOpenAIKnobs).dropUnanswered) {
      const error =
        o.kind === 'expired'
          ? {
              code: 'batch_expired',
              message: 'This request could not be executed before the completion window expired.',
            }
          : { code: 'batch_cancelled', message: 'This request was cancelled before it could be executed.' };
      errors.push(JSON.stringify({ id, custom_id: o.customId, response: null, error }));
    }
  }
  const save = (lines: string[], purpose: string) => {
    if (lines.length === 0) return null;
    const id = `file-fake${String(files.size + 1).padStart(4, '0')}`;
    files.set(id, { text: `${lines.join('\n')}\n`, purpose, filename: `${batch.id}_${purpose}.jsonl` });
    return id;
  };
  ids.output = save(output, 'batch_output');
  ids.error = save(errors, 'batch_output');
}
