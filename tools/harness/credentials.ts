import {
	ICredentialsHelper,
	type ICredentialDataDecryptedObject,
	type ICredentials,
	type ICredentialType,
	type IHttpRequestOptions,
	type INodeProperties,
	type IRequestOptionsSimplified,
} from 'n8n-workflow';

/**
 * The part of n8n's CredentialsHelper a node run needs, applying each credential type's own
 * `authenticate` the way n8n does, so tests exercise the package's real signing.
 */
export class TestCredentialsHelper extends ICredentialsHelper {
	constructor(
		private readonly types: Record<string, ICredentialType>,
		private readonly data: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
	}

	/** Every `authenticate` call, for tests that look at what was signed. */
	readonly authenticateCalls: IHttpRequestOptions[] = [];

	getParentTypes(): string[] {
		return [];
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
	): Promise<IHttpRequestOptions> {
		const type = this.types[typeName];
		if (typeof type?.authenticate !== 'function') {
			throw new Error(`Test harness: credential type ${typeName} has no authenticate function`);
		}
		const signed = await type.authenticate(credentials, requestOptions as IHttpRequestOptions);
		this.authenticateCalls.push(signed);
		return signed;
	}

	async preAuthentication(): Promise<undefined> {
		return undefined;
	}

	async runPreAuthentication(): Promise<undefined> {
		return undefined;
	}

	async getCredentials(): Promise<ICredentials> {
		throw new Error('Test harness: getCredentials is not supported');
	}

	async getDecrypted(
		_additionalData: unknown,
		_nodeCredentials: unknown,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.data[type];
		if (data === undefined) throw new Error(`Test harness: no credentials of type ${type}`);
		return { ...data };
	}

	async updateCredentials(): Promise<void> {}

	async updateCredentialsOauthTokenData(): Promise<void> {}

	getCredentialsProperties(type: string): INodeProperties[] {
		return this.types[type]?.properties ?? [];
	}
}
