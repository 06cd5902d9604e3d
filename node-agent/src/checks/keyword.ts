import type { KeywordCheckOutput } from '@vantage/shared-protocol';
import { httpExchange, judgeResponse, type HttpCheckDeps, type Verdict } from './http-request.js';
import { requestOf } from './http.js';
import { failed, passed, type Check } from './types.js';

/**
 * Whether `body` contains `keyword`; case-insensitive unless `case_sensitive` (Unicode lower case).
 * Runs on the event loop because it is bounded: linear in the body (V8's string search, the
 * Boyer-Moore family), which the body cap bounds (docs/api/checks.md "Patterns"); about 30 ms on
 * 1 MiB at worst (assertions/loop-bound.test.ts).
 */
export function containsKeyword(body: string, keyword: string, case_sensitive: boolean): boolean {
  return case_sensitive ? body.includes(keyword) : body.toLowerCase().includes(keyword.toLowerCase());
}

/**
 * `keyword` check (docs/api/checks.md): the http check whose body must contain `keyword`
 * (`invert`: must not), compared case-sensitively or not. Only the first body_max_bytes of the body are
 * searched; a keyword past them counts as absent (the result says `body_truncated`).
 */
export function createKeywordCheck(deps: HttpCheckDeps): Check<'keyword'> {
  return {
    type: 'keyword',
    async run(target, config, ctx) {
      const ex = await httpExchange(target, requestOf(config), ctx, deps);
      const found = ex.body === null ? null : containsKeyword(ex.body, config.keyword, config.case_sensitive);
      const output: KeywordCheckOutput = { ...ex.output, keyword_found: found };
      const keywordRule = (): Verdict => {
        if (found === config.invert) {
          const cut = ex.output.body_truncated ? ` (first ${ex.body!.length} characters read)` : '';
          const error = config.invert ? `body contains the keyword ${JSON.stringify(config.keyword)}` : `body does not contain the keyword ${JSON.stringify(config.keyword)}${cut}`;
          return { ok: false, error, error_class: 'assertion' };
        }
        return { ok: true };
      };
      const { verdict, assertions } = await judgeResponse(ex, config.expected_status, config.assertions, deps.sandbox, keywordRule);
      return verdict.ok ? passed(output, assertions) : failed(output, verdict.error, verdict.error_class, assertions);
    },
  };
}
