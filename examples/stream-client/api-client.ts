/** The few public API calls the example needs (fetch, JSON, the error envelope surfaced). */
export class ApiClient {
  private token: string | undefined;

  constructor(private readonly baseUrl: string) {}

  async login(apiKey: string): Promise<{ project_id: string }> {
    const answer = await this.request("POST", "/api/auth/access-tokens", { api_key: apiKey });
    this.token = answer.access_token as string;
    return answer as { project_id: string };
  }

  async request(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = {};
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const json = text === "" ? {} : (JSON.parse(text) as Record<string, unknown>);
    if (!response.ok) {
      const error = json.error as
        | { code?: string; message?: string; details?: unknown }
        | undefined;
      throw new Error(
        `${method} ${path}: ${response.status} ${error?.code}: ${error?.message} ${JSON.stringify(error?.details)}`,
      );
    }
    return json;
  }

  /** Creates a MoveSpec from YAML, freezes it into version 1 and releases it. */
  async publishMoveSpec(projectId: string, name: string, yaml: string): Promise<string> {
    const movespec = await this.request("POST", "/api/movespecs", { name, project_id: projectId });
    const id = movespec.movespec_id as string;
    await this.request("PUT", `/api/movespecs/${id}/draft`, { yaml_source: yaml });
    const version = await this.request("POST", `/api/movespecs/${id}/versions`);
    await this.request(
      "POST",
      `/api/movespecs/${id}/versions/${version.movespec_version_id}/release`,
    );
    return id;
  }
}
