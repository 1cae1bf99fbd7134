/** The Play Task panel's messages: the schemas live in core because the host parses them too. */
export * from "../../../../src/core/view/protocol/play";
export { collectArguments, type FormField, formFields, initialValue, type RawValue } from "../../../../src/core/view/model/play-form";
