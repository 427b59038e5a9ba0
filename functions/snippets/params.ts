import * as z from "zod";
import { p, type ParamRule } from "../kernel/params";

/**
 * Parameters shared by project and personal snippets (lib/api/helpers/snippets_helpers.rb).
 */

/**
 * Grape's `file_path: true` (API::Validations::Validators::FilePath): no path traversal
 * (Gitlab::PathTraversal) and no absolute path.
 */
export function validFilePath(path: string): boolean {
  if (path.startsWith("/")) return false;
  let decoded = path;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    // An undecodable path is checked as it is.
  }
  return !decoded.split(/[/\\]/).includes("..");
}

const filePath = () => p.string().refine(validFilePath, { message: "should be a valid file path" });
const nonBlankFilePath = () => p.nonBlank().refine(validFilePath, { message: "should be a valid file path" });

/** `params :create_file_params`. */
export const createFileParams = {
  files: p.hashes({ file_path: nonBlankFilePath(), content: p.nonBlank() }).optional(),
  content: p.nonBlank().optional(),
  file_name: p.string().optional(),
};
export const CREATE_FILE_RULES: ParamRule[] = [{ mutuallyExclusive: ["files", "content"] }, { exactlyOneOf: ["files", "content"] }];

/** `params :update_file_params` and the update's own. */
export const UpdateSnippet = z.object({
  content: p.nonBlank().optional(),
  description: p.string().optional(),
  file_name: p.string().optional(),
  title: p.nonBlank().optional(),
  visibility: p.oneOf("private", "internal", "public").optional(),
  files: p
    .hashes({
      action: p.oneOf("create", "update", "delete", "move"),
      content: p.string().optional(),
      file_path: filePath().optional(),
      previous_path: filePath().optional(),
    })
    .optional(),
});
export const UPDATE_RULES: ParamRule[] = [
  { mutuallyExclusive: ["files", "content"] },
  { mutuallyExclusive: ["files", "file_name"] },
  { atLeastOneOf: ["content", "description", "files", "file_name", "title", "visibility"] },
];

/** `params :raw_file_params`. */
export const RawFile = z.object({ file_path: filePath(), ref: p.string() });
