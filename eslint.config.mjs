import tsParser from '@typescript-eslint/parser';
import { configs as communityConfigs } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';

// The same configuration n8n's community-package scanner (and `n8n-node lint`) applies: the
// community-nodes recommended set plus eslint-plugin-n8n-nodes-base's community, credentials and
// nodes sets, with only the overrides n8n itself makes (rules that misfire on
// `NodeConnectionTypes.Main`, or that n8n does not apply to community packages).
export default [
	{
		ignores: ['dist/**', 'node_modules/**', 'test/**', 'bench/**', 'scripts/**', 'examples/**', 'docs/**'],
	},
	communityConfigs.recommended,
	{ rules: { 'no-console': 'error' } },
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
	{ files: ['**/*.json', '**/*.ts'], languageOptions: { parser: tsParser } },
];
