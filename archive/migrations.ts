/**
 * Append-only, named schema migrations. Never edit or reorder a shipped entry: add a new one.
 * Each runs once, in order, inside a transaction, and is recorded in `migrations`.
 */
export const MIGRATIONS: readonly { name: string; sql: string }[] = [
  {
    name: '001-initial',
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        harness_version TEXT NOT NULL,
        seed INTEGER NOT NULL,
        meta_model TEXT NOT NULL,
        task_model TEXT NOT NULL,
        simulated INTEGER NOT NULL,
        domains TEXT NOT NULL,
        config TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'running',
        finished_at TEXT
      );
      CREATE TABLE variants (
        id INTEGER PRIMARY KEY,
        parent_id INTEGER REFERENCES variants(id),
        commit_sha TEXT,
        state TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending',
        valid_parent INTEGER NOT NULL DEFAULT 0,
        failure_reason TEXT,
        diff_stat TEXT,
        task_code_hash TEXT,
        selection_reason TEXT,
        created_at TEXT NOT NULL,
        finished_at TEXT
      );
      CREATE TABLE evaluations (
        variant_id INTEGER NOT NULL REFERENCES variants(id),
        domain TEXT NOT NULL,
        split TEXT NOT NULL,
        stage TEXT NOT NULL,
        score REAL NOT NULL,
        n_tasks INTEGER NOT NULL,
        n_total INTEGER NOT NULL,
        correct INTEGER NOT NULL,
        wrong INTEGER NOT NULL,
        parse_failures INTEGER NOT NULL,
        errors INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (variant_id, domain, split, stage)
      );
      CREATE TABLE task_results (
        variant_id INTEGER NOT NULL REFERENCES variants(id),
        domain TEXT NOT NULL,
        split TEXT NOT NULL,
        task_id TEXT NOT NULL,
        outcome TEXT NOT NULL,
        prediction TEXT,
        raw_output TEXT,
        score REAL NOT NULL,
        error TEXT,
        latency_ms INTEGER,
        cost_usd REAL NOT NULL DEFAULT 0,
        reused INTEGER NOT NULL DEFAULT 0,
        code_hash TEXT NOT NULL,
        task_model TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (variant_id, domain, split, task_id)
      );
      CREATE INDEX task_results_reuse ON task_results (code_hash, domain, split, task_model);
      CREATE TABLE llm_calls (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts TEXT NOT NULL,
        variant_id INTEGER,
        role TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cache_read_tokens INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        latency_ms INTEGER NOT NULL,
        status TEXT NOT NULL,
        error TEXT
      );
      CREATE TABLE events (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        ts TEXT NOT NULL,
        variant_id INTEGER,
        type TEXT NOT NULL,
        data TEXT NOT NULL
      );
    `,
  },
  {
    name: '002-ledger-details',
    sql: `
      ALTER TABLE llm_calls ADD COLUMN attempts INTEGER NOT NULL DEFAULT 1;
      ALTER TABLE llm_calls ADD COLUMN retried TEXT;
      ALTER TABLE llm_calls ADD COLUMN replayed INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE llm_calls ADD COLUMN adapted TEXT;
    `,
  },
  {
    name: '003-selection-score',
    sql: `
      ALTER TABLE variants ADD COLUMN selection_score REAL;
    `,
  },
  {
    name: '004-sandbox-record',
    sql: `
      ALTER TABLE runs ADD COLUMN sandbox TEXT;
    `,
  },
  {
    name: '005-generation-steps',
    sql: `
      ALTER TABLE variants ADD COLUMN parent_commit TEXT;
      ALTER TABLE variants ADD COLUMN failure_cause TEXT;
    `,
  },
  {
    name: '006-task-result-detail',
    sql: `
      ALTER TABLE task_results ADD COLUMN detail TEXT;
    `,
  },
  {
    // The step a generation is in, named as everywhere else; its verdict stays `status`
    // (docs/architecture.md, 'The generation as a table of steps').
    name: '007-variant-step',
    sql: `
      ALTER TABLE variants RENAME COLUMN state TO step;
    `,
  },
  {
    // The test output a grader saw (docs/architecture.md, 'Workspace tasks'), shown beside the diff.
    name: '008-task-result-log',
    sql: `
      ALTER TABLE task_results ADD COLUMN log TEXT;
    `,
  },
  {
    // The task a model call was made for, as the TaskAgent named it (the request line's domain and id); null
    // when it named none. A task result's cost and tokens are the sums of its variant's TaskAgent calls for
    // its task (null tokens: a result stored before they were counted).
    name: '009-task-costs',
    sql: `
      ALTER TABLE task_results ADD COLUMN input_tokens INTEGER;
      ALTER TABLE task_results ADD COLUMN output_tokens INTEGER;
      ALTER TABLE llm_calls ADD COLUMN task_domain TEXT;
      ALTER TABLE llm_calls ADD COLUMN task_id TEXT;
      CREATE INDEX llm_calls_task ON llm_calls (variant_id, task_domain, task_id);
    `,
  },
  {
    // Each attempt at a task is kept (`--eval-repeats`, `--noise-floor`): the attempt joins the key. Results
    // stored before are the first attempt, 0. SQLite cannot change a primary key, so the table is rebuilt.
    name: '010-task-result-attempts',
    sql: `
      CREATE TABLE task_results_new (
        variant_id INTEGER NOT NULL REFERENCES variants(id),
        domain TEXT NOT NULL,
        split TEXT NOT NULL,
        task_id TEXT NOT NULL,
        attempt INTEGER NOT NULL DEFAULT 0,
        outcome TEXT NOT NULL,
        prediction TEXT,
        raw_output TEXT,
        score REAL NOT NULL,
        error TEXT,
        latency_ms INTEGER,
        cost_usd REAL NOT NULL DEFAULT 0,
        reused INTEGER NOT NULL DEFAULT 0,
        code_hash TEXT NOT NULL,
        task_model TEXT NOT NULL,
        created_at TEXT NOT NULL,
        detail TEXT,
        log TEXT,
        input_tokens INTEGER,
        output_tokens INTEGER,
        PRIMARY KEY (variant_id, domain, split, task_id, attempt)
      );
      INSERT INTO task_results_new (variant_id, domain, split, task_id, attempt, outcome, prediction, raw_output,
        score, error, latency_ms, cost_usd, reused, code_hash, task_model, created_at, detail, log, input_tokens,
        output_tokens)
      SELECT variant_id, domain, split, task_id, 0, outcome, prediction, raw_output, score, error, latency_ms,
        cost_usd, reused, code_hash, task_model, created_at, detail, log, input_tokens, output_tokens
      FROM task_results;
      DROP TABLE task_results;
      ALTER TABLE task_results_new RENAME TO task_results;
      CREATE INDEX task_results_reuse ON task_results (code_hash, domain, split, task_model);
    `,
  },
  {
    // Scores under noise: the confirmed score of each `--confirm-top` variant beside its raw one (the fresh
    // attempts are task results under their attempt numbers), and variant 0's noise floor (`--noise-floor`).
    name: '011-confirmed-scores',
    sql: `
      CREATE TABLE confirmed_scores (
        variant_id INTEGER PRIMARY KEY REFERENCES variants(id),
        raw_score REAL NOT NULL,
        confirmed_score REAL NOT NULL,
        first_attempt INTEGER NOT NULL,
        attempts INTEGER NOT NULL,
        scores TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE TABLE noise_floor (
        id INTEGER PRIMARY KEY CHECK (id = 0),
        spread REAL NOT NULL,
        scores TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
    `,
  },
  {
    // The model the provider said served a call (OpenAI's and Anthropic's `model`, Gemini's `modelVersion`,
    // e.g. "gpt-4o-2024-08-06" for "openai/gpt-4o"); `model` stays the id asked for. Null: the provider named
    // none, the call failed, or it was made before this was kept.
    name: '012-reported-model',
    sql: `
      ALTER TABLE llm_calls ADD COLUMN reported_model TEXT;
    `,
  },
  {
    // Batch rounds (`--batch`): each batch submitted to a provider, and each TaskAgent request asked in one,
    // written before the batch is submitted, so that a resumed run collects a pending batch instead of
    // submitting it again. A request's answer is kept once collected; a model call charged through a batch
    // is marked in the ledger.
    name: '013-batches',
    sql: `
      CREATE TABLE batches (
        id INTEGER PRIMARY KEY,
        variant_id INTEGER NOT NULL,
        model TEXT NOT NULL,
        provider_batch_id TEXT,
        state TEXT NOT NULL,
        provider_state TEXT,
        created_at TEXT NOT NULL,
        submitted_at TEXT,
        ended_at TEXT,
        requests INTEGER NOT NULL,
        done INTEGER NOT NULL DEFAULT 0,
        failed INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE batch_requests (
        id INTEGER PRIMARY KEY,
        variant_id INTEGER NOT NULL,
        domain TEXT NOT NULL,
        task_id TEXT NOT NULL,
        attempt INTEGER NOT NULL,
        call_index INTEGER NOT NULL,
        request_hash TEXT NOT NULL,
        model TEXT NOT NULL,
        request TEXT NOT NULL,
        batch_id INTEGER REFERENCES batches(id),
        custom_id TEXT,
        status TEXT NOT NULL,
        answer TEXT,
        error TEXT,
        created_at TEXT NOT NULL,
        UNIQUE (variant_id, domain, task_id, attempt, call_index)
      );
      CREATE INDEX batch_requests_batch ON batch_requests (batch_id);
      ALTER TABLE llm_calls ADD COLUMN batch INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    // A child decided against its parent under --accept sequential (archive/acceptance.ts): one row per child.
    name: '014-acceptance',
    sql: `
      CREATE TABLE acceptance (
        variant_id INTEGER PRIMARY KEY REFERENCES variants(id),
        parent_id INTEGER NOT NULL REFERENCES variants(id),
        decision TEXT NOT NULL,
        evidence REAL NOT NULL,
        futility REAL NOT NULL,
        tasks INTEGER NOT NULL,
        of INTEGER NOT NULL,
        paired INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
    `,
  },
];
