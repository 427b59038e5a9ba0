import { describe, expect, it } from "vitest";
import { passwordComplexity, validateUser } from "../../functions/users/model";

// The application settings password_{number,lowercase,uppercase,symbol}_required (EE's
// Password::ComplexityValidator) act on every password users/model.ts validates (POST and PUT /users).
// Unit-level: turning them on instance-wide would change the passwords other test files may send.
describe("password complexity settings", () => {
  const check = (password: string, settings: Record<string, unknown>) =>
    validateUser({ password }, { passwordRequired: true, verifiedEmails: [], passwordComplexity: passwordComplexity(settings) }).password;

  it("asks for what each enabled rule requires, in GitLab's order and words", () => {
    const all = { password_number_required: true, password_lowercase_required: true, password_uppercase_required: true, password_symbol_required: true };
    expect(check("abcdefghij", all)).toEqual(["requires at least one number", "requires at least one uppercase letter", "requires at least one symbol character"]);
    expect(check("ABCDEFGHIJ", all)).toEqual(["requires at least one number", "requires at least one lowercase letter", "requires at least one symbol character"]);
    expect(check("Abcdefgh-1", all)).toBeUndefined();
    expect(check("Ábcdéfgh 1", all)).toBeUndefined();
  });

  it("asks for nothing when the settings are off (their defaults)", () => {
    expect(check("abcdefghij", {})).toBeUndefined();
    expect(check("abcdefghij", { password_symbol_required: true })).toEqual(["requires at least one symbol character"]);
  });
});
