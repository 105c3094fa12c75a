import { ForgotPasswordForm } from '@/components/auth/forgot-password-form';

export const metadata = { title: 'Forgot password · Meeting Notes' };

export default function ForgotPasswordPage() {
  return <ForgotPasswordForm />;
}
