import type Docker from "dockerode";

/** Whether the engine has an image of this tag (a 404 says no; any other failure is the engine's and is thrown). */
export async function imagePresent(docker: Docker, tag: string): Promise<boolean> {
  try {
    await docker.getImage(tag).inspect();
    return true;
  } catch (e) {
    if ((e as { statusCode?: number }).statusCode === 404) return false;
    throw e;
  }
}
