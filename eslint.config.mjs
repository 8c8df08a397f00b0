import tseslint from 'typescript-eslint';
import { configs as communityConfigs } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

// Product code (nodes/, credentials/, package.json) gets the same configuration n8n's
// community-package scanner (and `n8n-node lint`) applies: the community-nodes recommended set plus
// eslint-plugin-n8n-nodes-base's community, credentials and nodes sets, with only the overrides n8n
// itself makes (rules that misfire on `NodeConnectionTypes.Main`, or that n8n does not apply to
// community packages).
const productCode = [
	{
		...communityConfigs.recommended,
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
	},
	{
		files: ['nodes/**/*.ts', 'credentials/**/*.ts', 'package.json'],
		rules: { 'no-console': 'error' },
	},
	{ plugins: { 'n8n-nodes-base': n8nNodesBase } },
	{ files: ['package.json'], rules: { ...n8nNodesBase.configs.community.rules } },
	{
		files: ['credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
			'n8n-nodes-base/cred-class-field-type-options-password-missing': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
	{ files: ['**/*.json', '**/*.ts'], languageOptions: { parser: tseslint.parser } },
];

// Everything else that is ours (tests, the sandbox exchange, benchmarks, tooling): the n8n rules
// are about node and credential classes and do not apply; typescript-eslint's recommended set does.
const supportCode = [
	'test/**/*.ts',
	'sandbox/**/*.ts',
	'bench/**/*.ts',
	'tools/**/*.ts',
	'tools/**/*.mjs',
];

export default [
	{
		ignores: [
			'dist/**',
			'**/node_modules/**',
			'.n8n-runtime/**',
			'.n8n-runtime-1/**',
			'scripts/**',
			'examples/**',
			'docs/**',
		],
	},
	...productCode,
	...tseslint.configs.recommended.map((config) => ({ ...config, files: supportCode })),
	{
		files: ['tools/**/*.mjs'],
		languageOptions: {
			sourceType: 'module',
			globals: { process: 'readonly', console: 'readonly', URL: 'readonly' },
		},
	},
];
