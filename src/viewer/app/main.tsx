/** Entry point of the web viewer's browser app (built by `npm run build:viewer`). */
import "./styles.css";
import { render } from "preact";
import { App } from "./app.tsx";
import { createDataSource } from "./data.ts";

render(<App source={createDataSource()} />, document.getElementById("app")!);
