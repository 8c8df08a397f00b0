/**
 * A jest reporter that fails the run when a test was skipped (`.skip`, `.todo`, a skipped
 * describe), unless the environment names that suite in SKIP_SUITES (comma-separated; a test
 * file's suite is its name up to the first dot: `editor.e2e.test.ts` is `editor`). A green run
 * then means every test ran.
 */
const path = require('path');

class NoSkippedTests {
	constructor() {
		this.error = undefined;
	}

	onRunComplete(_contexts, results) {
		const allowed = new Set(
			(process.env.SKIP_SUITES ?? '')
				.split(',')
				.map((name) => name.trim())
				.filter(Boolean),
		);
		const skipped = [];
		for (const file of results.testResults) {
			const suite = path.basename(file.testFilePath).split('.')[0];
			const notRun = file.testResults.filter((t) => t.status === 'pending' || t.status === 'todo');
			if (notRun.length === 0) continue;
			if (allowed.has(suite)) {
				process.stderr.write(
					`\n== ${notRun.length} test(s) of suite '${suite}' skipped: SKIP_SUITES names it\n`,
				);
				continue;
			}
			for (const test of notRun) {
				skipped.push(`${path.relative(process.cwd(), file.testFilePath)}: ${test.fullName}`);
			}
		}
		if (skipped.length === 0) return;
		const message =
			`${skipped.length} test(s) did not run, and SKIP_SUITES does not name their suite:\n` +
			skipped.map((line) => `  - ${line}`).join('\n') +
			'\nMake them run, or name the suite to skip, e.g. SKIP_SUITES=editor.';
		process.stderr.write(`\n== FAILED: ${message}\n`);
		this.error = new Error(message);
	}

	getLastError() {
		return this.error;
	}
}

module.exports = NoSkippedTests;
