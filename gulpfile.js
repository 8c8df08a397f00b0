const path = require('path');
const { task, src, dest } = require('gulp');

// Icons and codex files are not touched by tsc; copy them next to the compiled nodes and
// credentials. `encoding: false` keeps binary icons (PNG) byte-exact under gulp 5.
function copyIcons() {
	const sources = path.resolve('nodes', '**', '*.{png,svg}');
	const codex = path.resolve('nodes', '**', '*.node.json');
	const credentialIcons = path.resolve('credentials', '**', '*.{png,svg}');
	return Promise.all([
		new Promise((resolve, reject) =>
			src([sources, codex], { encoding: false })
				.pipe(dest(path.resolve('dist', 'nodes')))
				.on('finish', resolve)
				.on('error', reject),
		),
		new Promise((resolve, reject) =>
			src(credentialIcons, { encoding: false, allowEmpty: true })
				.pipe(dest(path.resolve('dist', 'credentials')))
				.on('finish', resolve)
				.on('error', reject),
		),
	]);
}

task('build:icons', copyIcons);
