import { MdsClient, type Project } from "@movement-detection/sdk";

export interface Connection {
  readonly client: MdsClient;
  readonly project: Project;
}

/**
 * Signs in with an API key or `key_id:key_secret`: the SDK exchanges it for short-lived access
 * tokens and mints a new one before each expires. Both stay in this object only (memory): nothing
 * goes to localStorage, sessionStorage or a cookie, so closing the tab signs out.
 */
export async function signIn(credential: string): Promise<Connection> {
  const client = new MdsClient({
    baseUrl: window.location.origin,
    credentials: credential.trim(),
  });
  const projectId = await client.projectId();
  const project = await client.getProject({ project_id: projectId });
  return { client, project };
}
