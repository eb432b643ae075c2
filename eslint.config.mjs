// ESLint runs beside Biome for one job Biome does not do: checking regular expressions for
// super-linear backtracking. Expressions in packages/*/src may meet outside input (store pages,
// UCP profiles, platform and model answers, request bodies and headers), and one backtracking
// expression on a store's endpoint held the process for 16 s (issue 18). Formatting and every
// other lint stay with Biome; `pnpm lint` runs both. A finding is fixed, or disabled on its line
// with a comment saying why the input cannot be hostile. For the server's tests it also refuses
// a test clock made from the real time (see the second block).
import tsParser from '@typescript-eslint/parser';
import regexp from 'eslint-plugin-regexp';

export default [
  {
    files: ['packages/*/src/**/*.{ts,tsx}'],
    languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType: 'module' },
    // A disable comment for a rule that no longer fires is itself an error, so none goes stale.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { regexp },
    rules: {
      // The plugin's recommended set finds real mistakes (useless or conflicting parts, empty
      // alternatives, misleading groups) ...
      ...regexp.configs.recommended.rules,
      // ... and restates working expressions in a preferred style. These fired 30 times in code
      // that is correct as written ([0-9] for \d, [A-Za-z] with the i flag, an unused group), so
      // they stay off rather than churn files for no change in behaviour.
      'regexp/prefer-d': 'off',
      'regexp/prefer-w': 'off',
      'regexp/use-ignore-case': 'off',
      'regexp/no-unused-capturing-group': 'off',
      'regexp/optimal-quantifier-concatenation': 'off',
      'regexp/no-useless-character-class': 'off',
      'regexp/negation': 'off',
      // Biome's noControlCharactersInRegex already checks this, with its own ignore comments.
      'no-control-regex': 'off',
      // The two rules this config exists for, as errors, reporting potential cases too: backtracking
      // within one attempt, and the cost of retrying a pattern from every position of a long input.
      'regexp/no-super-linear-backtracking': ['error', { report: 'potential' }],
      'regexp/no-super-linear-move': ['error', { report: 'potential', ignoreSticky: false }],
    },
  },
  {
    // A test clock started from the real time makes a test's outcome depend on when it runs: a
    // test that moves it 3 hours counted a fire on the next day from 21:00 UTC on, and failed
    // CI then. Test servers start at a pinned instant (`new ManualClock()`, 2026-01-05 09:00
    // UTC) unless a test chooses another. Where a fake really needs the real clock, the line
    // says why in a disable comment, and scripts/clock-sweep.sh runs that file at chosen instants.
    files: ['packages/server/test/**/*.ts'],
    languageOptions: { parser: tsParser, ecmaVersion: 'latest', sourceType: 'module' },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      'no-restricted-syntax': [
        'error',
        ...[
          "NewExpression[callee.name='ManualClock'] > NewExpression[callee.name='Date'][arguments.length=0]",
          "NewExpression[callee.name='ManualClock'] > CallExpression[callee.object.name='Date'][callee.property.name='now']",
        ].map((selector) => ({
          selector,
          message:
            'A test clock started from the real time depends on the time of day the test runs: pin it (new ManualClock() or a chosen instant).',
        })),
      ],
    },
  },
];
