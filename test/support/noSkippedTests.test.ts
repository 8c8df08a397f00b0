/**
 * The reporter that makes a skipped test fail the run: a real jest run over a throwaway file with
 * one skipped test, once without and once with its suite named in SKIP_SUITES.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const reporter = path.resolve(__dirname, 'noSkippedTests.js');
const jestBin = require.resolve('jest/bin/jest');

function runJest(files: Record<string, string>, env: Record<string, string> = {}) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'no-skipped-tests-'));
	for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
	const config = { rootDir: dir, testMatch: ['**/*.check.js'], reporters: ['default', reporter] };
	const run = spawnSync(process.execPath, [jestBin, '--config', JSON.stringify(config), '--ci'], {
		cwd: dir,
		env: { ...process.env, SKIP_SUITES: '', ...env },
		encoding: 'utf8',
	});
	fs.rmSync(dir, { recursive: true, force: true });
	return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

const skipping = {
	'editor.check.js': "it.skip('drives the editor', () => {});\nit('runs', () => {});\n",
};

describe('noSkippedTests reporter', () => {
	it('fails a run in which a test was skipped, naming the test and the way out', () => {
		const run = runJest(skipping);
		expect(run.status).toBe(1);
		expect(run.output).toContain('editor.check.js: drives the editor');
		expect(run.output).toContain('SKIP_SUITES');
	});

	it('fails a run with a todo test', () => {
		const run = runJest({ 'unit.check.js': "it.todo('is not written yet');\n" });
		expect(run.status).toBe(1);
		expect(run.output).toContain('unit.check.js: is not written yet');
	});

	it('lets the skip through when SKIP_SUITES names the suite, and says so', () => {
		const run = runJest(skipping, { SKIP_SUITES: 'queue,editor' });
		expect(run.status).toBe(0);
		expect(run.output).toContain("suite 'editor' skipped: SKIP_SUITES names it");
	});

	it('passes a run in which every test ran', () => {
		expect(runJest({ 'unit.check.js': "it('runs', () => {});\n" }).status).toBe(0);
	});
});
