/**
 * @module node/tools/file-errors
 * The Flow codes of file-system failures in the built-in tools (docs/tools.md "Sandbox"), so a
 * raw errno (ENAMETOOLONG, ENXIO, EACCES, ENOSPC) never reaches the model: each names the path
 * and what to do next.
 */
import { FlowError } from "../../core/errors.js";

/** The tool and path a failure is about (a `SandboxRequest` fits). */
export interface ToolPath {
  toolName: string;
  rootDir: string;
  path: string;
}

/** TOOL_INPUT_INVALID for a directory, TOOL_FILE_NOT_REGULAR for a FIFO, socket or device. */
export function notRegular(req: ToolPath, what: string): FlowError {
  if (what === "a directory") {
    return new FlowError("TOOL_INPUT_INVALID", `Tool "${req.toolName}": "${req.path}" is a directory; give a file path (use grep or bash \`ls\` to list).`, { toolName: req.toolName, path: req.path });
  }
  return new FlowError(
    "TOOL_FILE_NOT_REGULAR",
    `Tool "${req.toolName}": "${req.path}" is ${what} (a FIFO, socket or device); the file tools only open regular files. Use bash if the task really needs it.`,
    { toolName: req.toolName, path: req.path },
  );
}

/** Maps the errno of a file operation to a Flow code; anything else is returned as it is. */
export function fileError(req: ToolPath, error: unknown): unknown {
  const e = error as NodeJS.ErrnoException;
  if (e instanceof FlowError || typeof e?.code !== "string") return error;
  const details = { toolName: req.toolName, path: req.path, errno: e.code };
  switch (e.code) {
    case "ENAMETOOLONG":
      return new FlowError("TOOL_PATH_TOO_LONG", `Tool "${req.toolName}": "${req.path.slice(0, 200)}..." is longer than the file system allows (255 bytes per name, 4095 per path). Use a shorter path.`, details, { cause: e });
    case "ENOENT":
      return new FlowError("TOOL_FILE_NOT_FOUND", `Tool "${req.toolName}": "${req.path}" does not exist under ${req.rootDir}.`, details, { cause: e });
    case "ENXIO":
    case "ENODEV":
      return notRegular(req, "not a regular file");
    case "EACCES":
    case "EPERM":
    case "EROFS":
      return new FlowError("TOOL_PERMISSION_DENIED", `Tool "${req.toolName}": the file system refused access to "${req.path}" (${e.code}). Check its permissions, or use another path.`, details, { cause: e });
    case "ENOSPC":
    case "EDQUOT":
      return new FlowError("TOOL_DISK_FULL", `Tool "${req.toolName}": no space left to write "${req.path}" (${e.code}). Free disk space, then call it again.`, details, { cause: e });
    default:
      return error;
  }
}
