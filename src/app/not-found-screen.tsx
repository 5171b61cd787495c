import { useNavigate } from 'react-router-dom';
import { Button } from '../components/ui/button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../components/ui/card';

/** Any unknown path (docs/behaviour.md, "Screens and routes"). */
export function NotFoundScreen() {
  const navigate = useNavigate();
  return (
    <main className="center-page">
      <Card className="auth-card">
        <CardHeader>
          <p className="big-number" aria-hidden>
            404
          </p>
          <CardTitle>Page Not Found</CardTitle>
          <CardDescription>The page you&apos;re looking for doesn&apos;t exist or has been moved.</CardDescription>
        </CardHeader>
        <CardContent>
          <Button onClick={() => navigate('/')}>Return to Home</Button>
        </CardContent>
      </Card>
    </main>
  );
}
